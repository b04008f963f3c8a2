import { ApiError } from "@crm/contracts";
import { runBatch } from "@crm/db";
import { and, eq, type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Database } from "./database";
import type { ServiceContext } from "./env";

/**
 * Writes that never lose an update (DESIGN.md section 2). A change writes only the columns its
 * request names, in one batch that opens with a compare-and-set on the row's `updatedAt`: the batch
 * applies only while the row is as it was read. When another write moved the row in between, the
 * change is planned again from the row as it is now, unless that write changed one of the fields
 * this request names: then the other whole value stands and this request is 409 `conflict`.
 *
 * `updatedAt` is the row's version: every conditional write moves it strictly forward (two writes
 * in one millisecond still differ), so a compare-and-set against it never passes for a row another
 * write changed.
 */

/** A row a conditional write changes: compared and set by its `updatedAt`. */
export interface VersionedRow {
  id: string;
  updatedAt: number;
}

type VersionedTable = SQLiteTable & { id: SQLiteColumn; updatedAt: SQLiteColumn };

/** Thrown by `runConditionalBatch` when the row is no longer as it was read; nothing of the batch was written. */
class RowMoved extends Error {}

/** Plans of one request against rows that keep moving: one write wins each round, so eight rounds cover eight writers. */
export const maxAttempts = 10;

/** The `updatedAt` a write gives a row: now, and always past the one it read. */
export const nextUpdatedAt = (row: VersionedRow, now = Date.now()) => Math.max(now, row.updatedAt + 1);

/** Fails the batch it is in (rolling all of it back) when the statement before it changed no row. */
const failUnlessChanged = (db: Database) =>
  // json() of text that is not JSON raises: the one way to make a statement of a batch fail on a condition.
  db.run(sql`select json(case when changes() = 0 then 'row moved' else '0' end)`);

/**
 * Statements of a batch that set `columns` (and `updatedAt`) on `row` only while it still has the
 * `updatedAt` it was read with (and meets `also`), and fail the whole batch otherwise.
 */
export function compareAndSet(
  db: Database,
  table: VersionedTable,
  row: VersionedRow,
  columns: Record<string, unknown>,
  updatedAt: number,
  also?: SQL,
): [BatchItem<"sqlite">, BatchItem<"sqlite">] {
  return [
    db
      .update(table)
      .set({ ...columns, updatedAt } as never)
      .where(and(eq(table.id, row.id), eq(table.updatedAt, row.updatedAt), also)),
    failUnlessChanged(db),
  ];
}

/**
 * Runs `statements` in one D1 batch after setting `columns` (and `updatedAt`) on `row`, all only if
 * the row still has the `updatedAt` it was read with (and meets `also`, when given). The second
 * statement fails, and with it the whole batch (a D1 batch is one transaction), when the first
 * changed nothing.
 */
export async function runConditionalBatch(
  db: Database,
  table: VersionedTable,
  row: VersionedRow,
  columns: Record<string, unknown>,
  updatedAt: number,
  statements: BatchItem<"sqlite">[] = [],
  also?: SQL,
): Promise<void> {
  const where = and(eq(table.id, row.id), eq(table.updatedAt, row.updatedAt), also);
  try {
    await db.batch([...compareAndSet(db, table, row, columns, updatedAt, also), ...statements]);
  } catch (error) {
    const [still] = await db
      .select({ id: table.id })
      .from(table as SQLiteTable)
      .where(where);
    if (!still) throw new RowMoved();
    throw error;
  }
}

export interface ConditionalChange<Read, Result> {
  /** The resource as named in messages ("Task"). */
  what: string;
  /** The properties the request sets, as its representation names them. */
  named: readonly string[];
  /** Reads the resource as it is now (and refuses what the caller may not change). */
  read: () => Promise<Read>;
  /** Its representation, compared on `named` between the first read and a later one. */
  shown: (read: Read) => object;
  /** Plans the change from what was read and runs it with `runConditionalBatch`. */
  write: (read: Read) => Promise<Result>;
}

const differs = (before: object, after: object, key: string) =>
  JSON.stringify((before as Record<string, unknown>)[key]) !== JSON.stringify((after as Record<string, unknown>)[key]);

const versionOf = (shown: object) => (shown as { updatedAt?: unknown }).updatedAt;

export const preconditionFailed = () =>
  new ApiError("precondition_failed", "The resource changed since the version If-Match names; read it again");

/**
 * The one way a PATCH (or PUT) changes a resource: planned from a read, written conditionally,
 * replanned when the row moved. Under `If-Match` (`precondition`: the `updatedAt` of the version it
 * named, set by the precondition step) the change applies to that version only: a row that moved
 * since is 412, never replanned.
 */
export async function changeWithoutLoss<Read, Result>(
  context: Pick<ServiceContext, "precondition">,
  change: ConditionalChange<Read, Result>,
): Promise<Result> {
  const { precondition } = context;
  const first = await change.read();
  if (precondition !== undefined && versionOf(change.shown(first)) !== precondition) throw preconditionFailed();
  let current = first;
  for (let attempt = 1; ; attempt++) {
    try {
      return await change.write(current);
    } catch (error) {
      if (!(error instanceof RowMoved)) throw error;
      if (precondition !== undefined) throw preconditionFailed();
    }
    current = await change.read();
    const taken = change.named.filter((key) => differs(change.shown(first), change.shown(current), key));
    if (taken.length > 0 || attempt === maxAttempts) {
      throw new ApiError("conflict", `${change.what} was changed by another request at the same time; read it again and retry`, {
        fields: taken,
      });
    }
  }
}

/**
 * The condition a single-statement DELETE adds to its WHERE under `If-Match`: the row is still at the
 * `updatedAt` named. Without `If-Match`, none. A statement that then removes nothing tells its caller
 * to find out why (gone, or moved: 412).
 */
export const atPrecondition = (context: Pick<ServiceContext, "precondition">, updatedAt: SQLiteColumn) =>
  context.precondition === undefined ? undefined : eq(updatedAt, context.precondition);

/** Whether a row read after a conditional DELETE removed nothing is at another version than `If-Match` named. */
export const movedSincePrecondition = (context: Pick<ServiceContext, "precondition">, row: { updatedAt: number }) =>
  context.precondition !== undefined && row.updatedAt !== context.precondition;

/**
 * Runs a DELETE's batch at the version `If-Match` named (`precondition`): it opens with a statement
 * that fails the whole batch unless the row still has that `updatedAt`, so a change that landed
 * after the precondition step makes the DELETE 412 with nothing removed. Without `If-Match`, the
 * batch as it is.
 */
export async function runBatchAtVersion(
  context: Pick<ServiceContext, "db" | "precondition">,
  table: VersionedTable,
  id: string,
  statements: BatchItem<"sqlite">[],
): Promise<void> {
  const { db, precondition } = context;
  if (precondition === undefined) return runBatch(db, statements);
  const atVersion = and(eq(table.id, id), eq(table.updatedAt, precondition));
  try {
    await db.batch([
      // Rewrites the version it names: a no-op that changes a row only while the row is at it.
      db
        .update(table)
        .set({ updatedAt: precondition } as never)
        .where(atVersion),
      failUnlessChanged(db),
      ...statements,
    ]);
  } catch (error) {
    const [still] = await db
      .select({ id: table.id })
      .from(table as SQLiteTable)
      .where(atVersion);
    if (!still) throw preconditionFailed();
    throw error;
  }
}
