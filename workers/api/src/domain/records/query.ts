import type { FieldType, FilterOperator, RecordViewConfig } from "@crm/contracts";
import { type SQL, sql } from "drizzle-orm";
import { compiledRows, StatementsByShape } from "../../compiled-statements";
import type { Database } from "../../database";
import { type KeysetColumn, type KeysetValue, keysetAfter, paginate } from "../../pagination";
import { checkView } from "../crm/view-config";
import { trimmedSql } from "./blank-text";
import { type RecordRow, valuesFromJson, valuesJson } from "./store";
import type { RecordField } from "./values";

/**
 * The record query engine: the saved-view filter language compiled to SQL over `record_values`,
 * keyset-paginated for any sort. Raw SQL through drizzle's `sql` template, in this one module,
 * because the shape (a driving index chosen by the sort, correlated EXISTS per condition, NULL-aware
 * keyset comparisons) is beyond drizzle's query builder.
 *
 * Plan: with a sort, rows are read in the order of the sort field's index
 * (`record_values_field_text|number`: field, value, record), each filter condition is an EXISTS
 * probe of the walked record's value (by field and value, or by record and field), and only the
 * entries that match are looked up in `records`; without a sort, in `records_object_type_created`
 * order. So the query walks an index and stops after `limit + 1` matches, never sorting the table.
 * The page's values come from `record_values_record`, a record's values side by side.
 */

export type RecordFilter = NonNullable<RecordViewConfig["filter"]>;
export type RecordSort = RecordViewConfig["sorts"][number];

const numericTypes = new Set<FieldType>(["number", "timestamp", "checkbox"]);
type ValueColumn = "value_number" | "value_text";
const columnOf = (field: RecordField): ValueColumn => (numericTypes.has(field.type) ? "value_number" : "value_text");

/** Filter values as stored: checkboxes as 0/1, emails and domains lower-cased. */
function stored(field: RecordField, value: unknown): string | number {
  if (typeof value === "boolean") return value ? 1 : 0;
  if (field.type === "email" || field.type === "domain") return String(value).toLowerCase();
  return value as string | number;
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (char) => `\\${char}`);

/** A fragment as a LIKE pattern over stored values (e-mail addresses and domains are stored lower-cased). */
const fragment = (field: RecordField, value: unknown, anchoredAtStart: boolean) => {
  const text = escapeLike(String(stored(field, value)));
  return anchoredAtStart ? `${text}%` : `%${text}%`;
};

/**
 * What the SQL of a page depends on: the statement is compiled once per shape (`StatementsByShape`),
 * and every id, value, position and the limit are its placeholders (`pageValues`).
 */
interface PageShape {
  op: "and" | "or";
  conditions: { operator: FilterOperator; column: ValueColumn; multiselect: boolean }[];
  sorts: { column: ValueColumn; direction: "asc" | "desc" }[];
  /** Which keys of the cursor's position are NULL (their keyset condition differs); null on a first page. */
  nullKeys: boolean[] | null;
}

function pageShape(query: RecordQuery, position: KeysetValue[] | undefined): PageShape {
  const fieldsById = new Map(query.fields.map((field) => [field.id, field]));
  const fieldOf = (id: string) => fieldsById.get(id) as RecordField;
  return {
    op: query.filter?.op ?? "and",
    conditions: (query.filter?.conditions ?? []).map(({ fieldDefinitionId, operator }) => ({
      operator,
      column: columnOf(fieldOf(fieldDefinitionId)),
      multiselect: fieldOf(fieldDefinitionId).type === "multiselect",
    })),
    sorts: (query.sorts ?? []).map(({ fieldDefinitionId, direction }) => ({
      column: columnOf(fieldOf(fieldDefinitionId)),
      direction,
    })),
    nullKeys: position ? position.map((value) => value === null) : null,
  };
}

/** The placeholders' values of a page: the query's ids and values as stored, the position, the limit. */
function pageValues(query: RecordQuery, limit: number, position: KeysetValue[] | undefined): Record<string, unknown> {
  const fieldsById = new Map(query.fields.map((field) => [field.id, field]));
  const values: Record<string, unknown> = { objectType: query.objectTypeId, limit };
  (query.filter?.conditions ?? []).forEach(({ fieldDefinitionId, operator, value }, i) => {
    const field = fieldsById.get(fieldDefinitionId) as RecordField;
    values[`field${i}`] = fieldDefinitionId;
    values[`value${i}`] = conditionValue(field, operator, value);
  });
  (query.sorts ?? []).forEach(({ fieldDefinitionId }, i) => {
    values[`sort${i}`] = fieldDefinitionId;
  });
  position?.forEach((value, i) => {
    values[`after${i}`] = value;
  });
  return values;
}

/** A condition's value as its SQL compares it: stored, a LIKE pattern, or a list as one JSON parameter. */
function conditionValue(field: RecordField, operator: FilterOperator, value: unknown): unknown {
  switch (operator) {
    case "contains":
    case "not_contains":
      return field.type === "multiselect" ? stored(field, value) : fragment(field, value, false);
    case "starts_with":
      return fragment(field, value, true);
    // One parameter however long the list: D1 binds at most 100 a statement.
    case "in":
    case "not_in":
      return JSON.stringify((value as unknown[]).map((item) => stored(field, item)));
    case "is_empty":
    case "is_not_empty":
      return null;
    default:
      return stored(field, value);
  }
}

/**
 * A condition as a probe of the record's value. `recordId` is the id of the row that drives the walk
 * (the sort index's `s0.record_id` when sorted), so that SQLite tests the condition before it looks
 * the record up: at 1 000 000 deals a page walks some 260 index entries for its 51 matches, and
 * looking each one up in `records` first was two pages read per entry that did not match.
 */
function conditionSql({ operator, column, multiselect }: PageShape["conditions"][number], i: number, recordId: SQL): SQL {
  const c = sql.raw(column);
  const value = sql.placeholder(`value${i}`);
  const probe = (predicate: SQL) =>
    sql`exists (select 1 from record_values v where v.record_id = ${recordId} and v.field_definition_id = ${sql.placeholder(`field${i}`)} and ${predicate})`;
  const like = sql`v.${c} like ${value} escape '\\'`;
  // A value, for `is_empty` and `is_not_empty`: blank text is none (see blank-text.ts).
  const held = column === "value_text" ? sql`${trimmedSql(sql`v.value_text`)} <> ''` : sql`v.${c} is not null`;
  switch (operator) {
    case "eq":
      return probe(sql`v.${c} = ${value}`);
    case "neq":
      return sql`not ${probe(sql`v.${c} = ${value}`)}`;
    case "contains":
      return probe(multiselect ? sql`v.${c} = ${value}` : like);
    case "not_contains":
      return sql`not ${probe(multiselect ? sql`v.${c} = ${value}` : like)}`;
    case "starts_with":
      return probe(like);
    case "gt":
      return probe(sql`v.${c} > ${value}`);
    case "gte":
      return probe(sql`v.${c} >= ${value}`);
    case "lt":
      return probe(sql`v.${c} < ${value}`);
    case "lte":
      return probe(sql`v.${c} <= ${value}`);
    case "in":
      return probe(sql`v.${c} in (select value from json_each(${value}))`);
    case "not_in":
      return sql`not ${probe(sql`v.${c} in (select value from json_each(${value}))`)}`;
    case "is_empty":
      return sql`not ${probe(held)}`;
    case "is_not_empty":
      return probe(held);
  }
}

export interface RecordQuery {
  objectTypeId: string;
  fields: RecordField[];
  filter?: RecordFilter | null;
  sorts?: RecordSort[];
  limit: number;
  cursor?: string;
}

/** A short stable digest of the query, so that a cursor only continues the query it came from. */
function digest(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash.toString(36);
}

type PageRow = Record<string, unknown>;

/** A key of the page's order; the row carries its value as `k<i>`. */
const orderKey = (expression: SQL, direction: "asc" | "desc", i: number, nullable: boolean): KeysetColumn<PageRow> => ({
  column: expression,
  direction,
  nullable,
  valueIn: (row) => (row[`k${i}`] as KeysetValue) ?? null,
});

/** The total order of a query: its sorts over stored values, then the id; without sorts, creation order. */
function recordOrder(sorts: PageShape["sorts"]): KeysetColumn<PageRow>[] {
  const [first, ...rest] = sorts;
  if (!first) return [orderKey(sql`r.created_at`, "asc", 0, false), orderKey(sql`r.id`, "asc", 1, false)];
  return [
    orderKey(sql`s0.${sql.raw(first.column)}`, first.direction, 0, true),
    ...rest.map((sort, i) => orderKey(sql`s${sql.raw(String(i + 1))}.${sql.raw(sort.column)}`, sort.direction, i + 1, true)),
    // The id breaks ties in the lead sort's direction, so one index scan serves both.
    orderKey(sql`s0.record_id`, first.direction, rest.length + 1, false),
  ];
}

const orderSql = (keys: KeysetColumn<PageRow>[]) => keys.map((key) => sql`${key.column} ${sql.raw(key.direction)}`);

/** The SQL of one page: live records of the type matching the filter, in sort order, after the position. */
function pageSql(shape: PageShape): SQL {
  const order = recordOrder(shape.sorts);
  const [first, ...rest] = shape.sorts;
  const walked = first ? sql`s0.record_id` : sql`r.id`;
  const filter =
    shape.conditions.length === 0
      ? undefined
      : sql`(${sql.join(
          shape.conditions.map((condition, i) => conditionSql(condition, i, walked)),
          shape.op === "and" ? sql` and ` : sql` or `,
        )})`;
  const after =
    shape.nullKeys &&
    keysetAfter(
      order,
      shape.nullKeys.map((isNull, i) => (isNull ? null : sql.placeholder(`after${i}`))),
    );
  // The page's records come with their values, so that the page is one round trip.
  const selected = [
    ...order.map((key, i) => sql`${key.column} as k${sql.raw(String(i))}`),
    sql`${valuesJson(sql`r.id`)} as value_rows`,
  ];
  const limit = sql.placeholder("limit");
  if (!first) {
    const where = [sql`r.object_type_id = ${sql.placeholder("objectType")}`, sql`r.deleted_at is null`, filter, after].filter(
      Boolean,
    ) as SQL[];
    return sql`select r.*, ${sql.join(selected, sql`, `)} from records r indexed by records_object_type_created where ${sql.join(where, sql` and `)} order by ${sql.join(orderSql(order), sql`, `)} limit ${limit}`;
  }
  const joins = rest.map((_, i) => {
    const alias = sql.raw(`s${i + 1}`);
    return sql` join record_values ${alias} on ${alias}.record_id = r.id and ${alias}.field_definition_id = ${sql.placeholder(`sort${i + 1}`)} and ${alias}.position = 0`;
  });
  const where = [sql`s0.field_definition_id = ${sql.placeholder("sort0")}`, sql`r.deleted_at is null`, filter, after].filter(
    Boolean,
  ) as SQL[];
  const index = sql.raw(first.column === "value_number" ? "record_values_field_number" : "record_values_field_text");
  return sql`select r.*, ${sql.join(selected, sql`, `)} from record_values s0 indexed by ${index} join records r on r.id = s0.record_id${sql.join(joins, sql``)} where ${sql.join(where, sql` and `)} order by ${sql.join(orderSql(order), sql`, `)} limit ${limit}`;
}

/** Compiled pages by shape: a few dozen shapes cover what clients and saved views ask. */
const pages = new StatementsByShape(256);

/**
 * One page's statement (compiled once for its shape) and its placeholders' values: at most `limit`
 * rows, after `position` when a walk continues.
 */
export function pageStatement(query: RecordQuery, limit: number, position?: KeysetValue[]) {
  const shape = pageShape(query, position);
  return { statement: pages.get(JSON.stringify(shape), () => pageSql(shape)), values: pageValues(query, limit, position) };
}

const toRecordRow = (row: PageRow): RecordRow => ({
  id: row.id as string,
  workspaceId: row.workspace_id as string,
  objectTypeId: row.object_type_id as string,
  createdBy: row.created_by as string,
  createdAt: row.created_at as number,
  updatedAt: row.updated_at as number,
  deletedAt: (row.deleted_at as number | null) ?? null,
});

/**
 * One page of records for a query; 400 when the filter or sorts do not fit the fields, or the cursor
 * is not this query's. `configPath` is where the input holds the filter and sorts, so that each
 * problem names a path of that input (see `checkView`).
 */
export async function queryRecordPage(db: Database, query: RecordQuery, secret: string, configPath: string) {
  const sorts = query.sorts ?? [];
  checkView(
    {
      type: "table",
      config: { columns: [], filter: query.filter ?? null, sorts, groupBy: null },
      kanbanFieldDefinitionId: null,
      kanbanWinOptionIds: [],
      kanbanLossOptionIds: [],
    },
    query.fields,
    configPath,
  );
  const page = await paginate<PageRow>(
    {
      scope: `records:${query.objectTypeId}:${digest(JSON.stringify([query.filter ?? null, sorts]))}`,
      limit: query.limit,
      cursor: query.cursor,
      order: recordOrder(pageShape(query, undefined).sorts),
      fetch: ({ position, limit }) => {
        const { statement, values } = pageStatement(query, limit, position);
        return compiledRows<PageRow>(db, statement, values);
      },
    },
    secret,
  );
  return {
    rows: page.data.map(toRecordRow),
    values: page.data.flatMap((row) => valuesFromJson(row.id as string, row.value_rows as string)),
    pagination: page.pagination,
  };
}
