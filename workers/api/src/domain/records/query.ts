import type { FieldType, FilterOperator, RecordViewConfig } from "@crm/contracts";
import { type SQL, sql } from "drizzle-orm";
import type { Database } from "../../env";
import { type KeysetColumn, type KeysetValue, paginate } from "../../pagination";
import { checkView } from "../crm/view-config";
import { type RecordRow, valuesFromJson, valuesJson } from "./store";
import type { RecordField } from "./values";

/**
 * The record query engine: the saved-view filter language compiled to SQL over `record_values`,
 * keyset-paginated for any sort. Raw SQL through drizzle's `sql` template, in this one module,
 * because the shape (a driving index chosen by the sort, correlated EXISTS per condition, NULL-aware
 * keyset comparisons) is beyond drizzle's query builder.
 *
 * Plan: with a sort, rows are read in the order of the sort field's index
 * (`record_values_field_text|number`: field, value, record) and each filter condition is an
 * EXISTS probe on the primary key (record, field); without one, in `records_object_type_created`
 * order. So the query walks an index and stops after `limit + 1` matches, never sorting the table.
 */

export type RecordFilter = NonNullable<RecordViewConfig["filter"]>;
export type RecordSort = RecordViewConfig["sorts"][number];

const numericTypes = new Set<FieldType>(["number", "timestamp", "checkbox"]);
const column = (field: RecordField) => sql.raw(numericTypes.has(field.type) ? "value_number" : "value_text");

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

function condition(field: RecordField, operator: FilterOperator, value: unknown): SQL {
  const c = column(field);
  const probe = (predicate: SQL) =>
    sql`exists (select 1 from record_values v where v.record_id = r.id and v.field_definition_id = ${field.id} and ${predicate})`;
  const list = () =>
    sql.join(
      (value as unknown[]).map((item) => sql`${stored(field, item)}`),
      sql`, `,
    );
  const one = () => stored(field, value);
  switch (operator) {
    case "eq":
      return probe(sql`v.${c} = ${one()}`);
    case "neq":
      return sql`not ${probe(sql`v.${c} = ${one()}`)}`;
    case "contains":
      return field.type === "multiselect"
        ? probe(sql`v.${c} = ${one()}`)
        : probe(sql`v.${c} like ${fragment(field, value, false)} escape '\\'`);
    case "not_contains":
      return field.type === "multiselect"
        ? sql`not ${probe(sql`v.${c} = ${one()}`)}`
        : sql`not ${probe(sql`v.${c} like ${fragment(field, value, false)} escape '\\'`)}`;
    case "starts_with":
      return probe(sql`v.${c} like ${fragment(field, value, true)} escape '\\'`);
    case "gt":
      return probe(sql`v.${c} > ${one()}`);
    case "gte":
      return probe(sql`v.${c} >= ${one()}`);
    case "lt":
      return probe(sql`v.${c} < ${one()}`);
    case "lte":
      return probe(sql`v.${c} <= ${one()}`);
    case "in":
      return probe(sql`v.${c} in (${list()})`);
    case "not_in":
      return sql`not ${probe(sql`v.${c} in (${list()})`)}`;
    case "is_empty":
      return sql`not ${probe(sql`v.${c} is not null`)}`;
    case "is_not_empty":
      return probe(sql`v.${c} is not null`);
  }
}

function filterSql(filter: RecordFilter | null | undefined, fieldsById: Map<string, RecordField>): SQL | undefined {
  if (!filter || filter.conditions.length === 0) return undefined;
  const parts = filter.conditions.map((item) =>
    condition(fieldsById.get(item.fieldDefinitionId) as RecordField, item.operator, item.value),
  );
  return sql`(${sql.join(parts, filter.op === "and" ? sql` and ` : sql` or `)})`;
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
function recordOrder(query: RecordQuery): KeysetColumn<PageRow>[] {
  const fieldsById = new Map(query.fields.map((field) => [field.id, field]));
  const [first, ...rest] = query.sorts ?? [];
  if (!first) return [orderKey(sql`r.created_at`, "asc", 0, false), orderKey(sql`r.id`, "asc", 1, false)];
  const lead = fieldsById.get(first.fieldDefinitionId) as RecordField;
  return [
    orderKey(sql`s0.${column(lead)}`, first.direction, 0, true),
    ...rest.map((sort, i) =>
      orderKey(
        sql`s${sql.raw(String(i + 1))}.${column(fieldsById.get(sort.fieldDefinitionId) as RecordField)}`,
        sort.direction,
        i + 1,
        true,
      ),
    ),
    // The id breaks ties in the lead sort's direction, so one index scan serves both.
    orderKey(sql`s0.record_id`, first.direction, rest.length + 1, false),
  ];
}

const orderSql = (keys: KeysetColumn<PageRow>[]) => keys.map((key) => sql`${key.column} ${sql.raw(key.direction)}`);

/** The SQL of one page: live records of the type matching the filter, in sort order, after the position. */
export function pageSql(query: RecordQuery, after: SQL | undefined): { statement: SQL } {
  const fieldsById = new Map(query.fields.map((field) => [field.id, field]));
  const sorts = query.sorts ?? [];
  const filter = filterSql(query.filter, fieldsById);
  const order = recordOrder(query);
  // The page's records come with their values, so that the page is one round trip.
  const selected = [
    ...order.map((key, i) => sql`${key.column} as k${sql.raw(String(i))}`),
    sql`${valuesJson(sql`r.id`)} as value_rows`,
  ];
  const limit = query.limit + 1;
  const [first, ...rest] = sorts;
  if (!first) {
    const where = [sql`r.object_type_id = ${query.objectTypeId}`, sql`r.deleted_at is null`, filter, after].filter(
      Boolean,
    ) as SQL[];
    return {
      statement: sql`select r.*, ${sql.join(selected, sql`, `)} from records r indexed by records_object_type_created where ${sql.join(where, sql` and `)} order by ${sql.join(orderSql(order), sql`, `)} limit ${limit}`,
    };
  }
  const lead = fieldsById.get(first.fieldDefinitionId) as RecordField;
  const joins = rest.map(
    (sort, i) =>
      sql` join record_values s${sql.raw(String(i + 1))} on s${sql.raw(String(i + 1))}.record_id = r.id and s${sql.raw(String(i + 1))}.field_definition_id = ${sort.fieldDefinitionId} and s${sql.raw(String(i + 1))}.position = 0`,
  );
  const where = [sql`s0.field_definition_id = ${lead.id}`, sql`r.deleted_at is null`, filter, after].filter(Boolean) as SQL[];
  const index = sql.raw(numericTypes.has(lead.type) ? "record_values_field_number" : "record_values_field_text");
  return {
    statement: sql`select r.*, ${sql.join(selected, sql`, `)} from record_values s0 indexed by ${index} join records r on r.id = s0.record_id${sql.join(joins, sql``)} where ${sql.join(where, sql` and `)} order by ${sql.join(orderSql(order), sql`, `)} limit ${limit}`,
  };
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
      order: recordOrder(query),
      fetch: ({ after }) => db.all<PageRow>(pageSql(query, after).statement),
    },
    secret,
  );
  return {
    rows: page.data.map(toRecordRow),
    values: page.data.flatMap((row) => valuesFromJson(row.id as string, row.value_rows as string)),
    pagination: page.pagination,
  };
}
