import { type Column, getTableColumns, type SQL, sql } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";

/**
 * A table's rows as JSON inside a statement, for a read that gathers several tables into one row
 * (`(select json_group_array(<rowJson>) from …)` as a column), and the typed rows back, mapped by
 * each column's own driver mapping as drizzle maps a select (booleans, JSON columns).
 */
const columnsOf = (table: SQLiteTable) => Object.entries(getTableColumns(table)) as [string, Column][];

const rowJsonCache = new Map<SQLiteTable, Map<string, SQL>>();

/** `json_object('<column>', "<alias>"."<column>", …)` over every column of `table` (names from the schema, never input). */
export function rowJson(table: SQLiteTable, alias: string): SQL {
  const byAlias = rowJsonCache.get(table) ?? new Map<string, SQL>();
  rowJsonCache.set(table, byAlias);
  let json = byAlias.get(alias);
  if (!json) {
    const pairs = columnsOf(table).map(([, column]) => `'${column.name}', "${alias}"."${column.name}"`);
    json = sql.raw(`json_object(${pairs.join(", ")})`);
    byAlias.set(alias, json);
  }
  return json;
}

/** The rows a `json_group_array(rowJson(table, …))` column holds, as drizzle's select of `table` gives them. */
export function rowsFromJson<Table extends SQLiteTable>(table: Table, json: string | null): Table["$inferSelect"][] {
  const columns = columnsOf(table);
  return (JSON.parse(json ?? "[]") as Record<string, unknown>[]).map(
    (object) =>
      Object.fromEntries(
        columns.map(([key, column]) => {
          const value = object[column.name];
          return [key, value === null || value === undefined ? null : column.mapFromDriverValue(value)];
        }),
      ) as Table["$inferSelect"],
  );
}
