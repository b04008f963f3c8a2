import { ApiError, type Pagination, signToken, verifyToken } from "@crm/contracts";
import { and, asc, desc, eq, gt, isNotNull, isNull, lt, or, type Placeholder, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";

export type KeysetValue = string | number | null;

/** One key of a list's total order; the last one must be unique (the id). */
export interface KeysetColumn<Row> {
  /** A column, or an SQL expression (the record query orders by stored values). */
  column: SQLWrapper;
  direction: "asc" | "desc";
  /** Keys that can be NULL compare NULL-aware: SQLite sorts NULL first ascending and last descending. */
  nullable?: boolean;
  valueIn: (row: Row) => KeysetValue;
}

interface CursorPayload {
  /** What the cursor belongs to: the list and its filters. A cursor of another list is refused. */
  s: string;
  /** Keyset position: the order values of the last row served. */
  p: KeysetValue[];
  /** The list's snapshot (`PageRequest.snapshot`), taken on the first page and kept for the whole walk. */
  t?: number;
}

/**
 * Rows strictly after `position` in the order: (a > x) or (a = x and b > y) … NULL never compares
 * equal, so nullable keys say what "equal" and "beyond" mean for a NULL position explicitly. A
 * compiled statement passes placeholders for the position's values (and null where it is null).
 */
export function keysetAfter<Row>(order: KeysetColumn<Row>[], position: (KeysetValue | Placeholder)[]): SQL {
  type Value = KeysetValue | Placeholder;
  const equal = (key: KeysetColumn<Row>, value: Value) => (value === null ? isNull(key.column) : eq(key.column, value));
  const beyond = (key: KeysetColumn<Row>, value: Value): SQL => {
    if (key.direction === "asc") return value === null ? isNotNull(key.column) : gt(key.column, value);
    if (value === null) return sql`0`;
    return key.nullable ? (or(lt(key.column, value), isNull(key.column)) as SQL) : lt(key.column, value);
  };
  const branches = order.map(
    (key, i) =>
      and(...order.slice(0, i).map((prior, j) => equal(prior, position[j] ?? null)), beyond(key, position[i] ?? null)) as SQL,
  );
  return or(...branches) as SQL;
}

/** The one cursor codec: an HMAC-signed keyset position, bound to the list (`scope`) it came from. */
const encodeCursor = (scope: string, position: KeysetValue[], secret: string, snapshot?: number) =>
  signToken({ s: scope, p: position, ...(snapshot === undefined ? {} : { t: snapshot }) } satisfies CursorPayload, secret);

/** The cursor's payload, or 400 `invalid_cursor` when it is tampered with or belongs to another list. */
async function decodePayload(cursor: string, scope: string, length: number, secret: string): Promise<CursorPayload> {
  const payload = (await verifyToken(cursor, secret)) as CursorPayload | null;
  if (!payload || payload.s !== scope || !Array.isArray(payload.p) || payload.p.length !== length) {
    throw new ApiError("invalid_cursor", "The cursor is not valid for this list; start again without it.");
  }
  return payload;
}

const decodeCursor = async (cursor: string, scope: string, length: number, secret: string) =>
  (await decodePayload(cursor, scope, length, secret)).p;

export interface PageRequest<Row> {
  /** Identifies the list and every filter that shapes it, e.g. `workspaces:<org>`. */
  scope: string;
  limit: number;
  cursor: string | undefined;
  order: KeysetColumn<Row>[];
  /**
   * For a list ordered by a key that changes (a conversation's last message): a value taken when the
   * first page is read (its time) and handed to every later page, so the walk can order by what the
   * key was then and skip nothing that existed at the start.
   */
  snapshot?: () => number;
  /** Runs the query: rows matching the list's filters and `position`, in `orderBy`, at most `limit`. */
  fetch: (query: {
    after: SQL | undefined;
    orderBy: SQL[];
    limit: number;
    position: KeysetValue[] | undefined;
    snapshot: number | undefined;
  }) => Promise<Row[]>;
}

/**
 * The one pagination helper: keyset pagination over a stable total order, so rows inserted
 * while a client pages never cause duplicates or gaps among rows that existed at the start.
 * Cursors are opaque and HMAC-protected; a tampered or foreign cursor is `invalid_cursor`.
 */
export async function paginate<Row>(request: PageRequest<Row>, secret: string): Promise<{ data: Row[]; pagination: Pagination }> {
  const payload =
    request.cursor === undefined ? undefined : await decodePayload(request.cursor, request.scope, request.order.length, secret);
  const position = payload?.p;
  const snapshot = payload ? payload.t : request.snapshot?.();
  const rows = await request.fetch({
    // Built when read: a compiled statement (the workspaces' page) takes `position` instead, and
    // drizzle's SQL trees built for nothing were a per-request cost of `GET /workspaces`.
    get after() {
      return position ? keysetAfter(request.order, position) : undefined;
    },
    get orderBy() {
      return request.order.map(({ column, direction }) => (direction === "asc" ? asc(column) : desc(column)));
    },
    limit: request.limit + 1,
    position,
    snapshot,
  });
  // The extra row only says that more exist; the cursor holds the position of the last row served.
  const hasMore = rows.length > request.limit;
  const data = hasMore ? rows.slice(0, request.limit) : rows;
  const last = data.at(-1);
  const cursor =
    hasMore && last
      ? await encodeCursor(
          request.scope,
          request.order.map((key) => key.valueIn(last)),
          secret,
          snapshot,
        )
      : null;
  return { data, pagination: { cursor, hasMore } };
}

/** The default total order of a list (DESIGN.md section 2): creation time, then id, oldest first (or newest). */
export function creationOrder<Row extends { createdAt: number; id: string }>(
  table: { createdAt: SQLiteColumn; id: SQLiteColumn },
  direction: "asc" | "desc" = "asc",
): KeysetColumn<Row>[] {
  return [
    { column: table.createdAt, direction, valueIn: (row) => row.createdAt },
    { column: table.id, direction, valueIn: (row) => row.id },
  ];
}

export interface FixedListPageRequest<Item> {
  scope: string;
  limit: number;
  cursor: string | undefined;
  /** The item's unique key, what the cursor holds. */
  keyOf: (item: Item) => string;
}

/**
 * A list that lives in code, not in a table (the event types, the published integrations): paged
 * in its own order with the same cursors, limits and shape as every stored list. The cursor holds
 * the last key served; one whose item a deploy removed since is `invalid_cursor`.
 */
export async function paginateFixedList<Item>(
  items: readonly Item[],
  request: FixedListPageRequest<Item>,
  secret: string,
): Promise<{ data: Item[]; pagination: Pagination }> {
  let start = 0;
  if (request.cursor !== undefined) {
    const [last] = await decodeCursor(request.cursor, request.scope, 1, secret);
    start = items.findIndex((item) => request.keyOf(item) === last) + 1;
    if (start === 0) throw new ApiError("invalid_cursor", "The cursor is not valid for this list; start again without it.");
  }
  const data = items.slice(start, start + request.limit);
  const hasMore = items.length > start + request.limit;
  const lastServed = data.at(-1);
  const cursor = hasMore && lastServed ? await encodeCursor(request.scope, [request.keyOf(lastServed)], secret) : null;
  return { data, pagination: { cursor, hasMore } };
}

/**
 * `paginate` for a list assembled in memory (from more than one database), ordered by one unique
 * string key ascending: the same signed cursors, the same page shape.
 */
export async function paginateSorted<Row>(
  request: { scope: string; limit: number; cursor: string | undefined; rows: Row[]; key: (row: Row) => string },
  secret: string,
): Promise<{ data: Row[]; pagination: Pagination }> {
  const position = request.cursor === undefined ? undefined : await decodeCursor(request.cursor, request.scope, 1, secret);
  const sorted = [...request.rows].sort((a, b) => (request.key(a) < request.key(b) ? -1 : 1));
  const remaining = position ? sorted.filter((row) => request.key(row) > String(position[0])) : sorted;
  const data = remaining.slice(0, request.limit);
  const last = data.at(-1);
  const hasMore = remaining.length > request.limit;
  const cursor = hasMore && last ? await encodeCursor(request.scope, [request.key(last)], secret) : null;
  return { data, pagination: { cursor, hasMore } };
}
