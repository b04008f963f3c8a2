import { type Column, getTableColumns, type SQL, sql } from "drizzle-orm";
import type { DrizzleD1Database } from "drizzle-orm/d1";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";

/**
 * A table's rows as JSON inside a statement: written (`insertRowsAsJson`: any number of rows as one
 * parameter) and read (`rowJson` in a `json_group_array` column, `rowsFromJson` back), each value
 * through its column's own driver mapping as drizzle maps an insert or a select (booleans, JSON columns).
 */
const columnsOf = (table: SQLiteTable) => Object.entries(getTableColumns(table)) as [string, Column][];

const rowJsonCache = new Map<SQLiteTable, Map<string, SQL>>();

/** `json_object('<column>', "<alias>"."<column>", …)` over every column of `table` (names from the schema, never input). */
export function rowJson(table: SQLiteTable, alias: string): SQL {
  let byAlias = rowJsonCache.get(table);
  if (!byAlias) {
    byAlias = new Map<string, SQL>();
    rowJsonCache.set(table, byAlias);
  }
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

/**
 * Inserts any number of rows with one statement: the rows travel as one JSON parameter, read back
 * by `json_each`. D1 binds at most 100 parameters a statement, and every statement of a batch is
 * prepared on its own, so a busy writer (the webhook lanes write thousands of attempt rows a
 * second) pays one prepare per batch instead of one per row. Values go through each column's own
 * driver mapping first; a column holding bytes cannot travel in JSON and is refused, and so is a
 * missing value of a column with a database default.
 */
export function insertRowsAsJson<Table extends SQLiteTable>(db: DrizzleD1Database, table: Table, rows: Table["$inferInsert"][]) {
  // The columns an insert writes, in the order drizzle lists them for `insert … select`.
  const columns = columnsOf(table).filter(([, column]) => !column.generated);
  const records = rows.map((row) =>
    columns.map(([key, column]) => {
      let value = (row as Record<string, unknown>)[key];
      if (value === undefined && column.defaultFn) value = column.defaultFn();
      // A database default would be lost: JSON has no "absent" value that the select could pass on.
      else if (value === undefined && column.hasDefault) throw new Error(`Column ${column.name} needs a value`);
      if (value === undefined || value === null) return null;
      const driverValue = column.mapToDriverValue(value);
      if (typeof driverValue === "object" && driverValue !== null)
        throw new Error(`Column ${column.name} cannot be inserted from JSON`);
      return driverValue;
    }),
  );
  const values = sql.join(
    columns.map((_, i) => sql.raw(`value ->> ${i}`)),
    sql`, `,
  );
  // `where true`: an upsert clause (`onConflictDoNothing`) may follow, and SQLite reads one after `insert … select` only past a WHERE.
  return db.insert(table).select(sql`select ${values} from json_each(${JSON.stringify(records)}) where true`);
}

/** `column in (…values)` with the list bound as one JSON parameter: D1 binds at most 100 a statement, and a list may be longer. */
export const inJsonList = (column: SQLiteColumn, values: string[]): SQL =>
  sql`${column} in (select value from json_each(${JSON.stringify(values)}))`;
