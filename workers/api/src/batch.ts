import { type Column, getTableColumns, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Database } from "./env";

/** Runs statements as one D1 batch (one transaction): all of them or none. Nothing to run is fine. */
export async function runBatch(db: Database, statements: BatchItem<"sqlite">[]): Promise<void> {
  const [first, ...rest] = statements;
  if (first) await db.batch([first, ...rest]);
}

/** Rows split so that each insert binds at most D1's 100 parameters (`columns` per row). */
export function rowsPerStatement<Row>(rows: Row[], columns: number): Row[][] {
  const size = Math.floor(100 / columns);
  const chunks: Row[][] = [];
  for (let i = 0; i < rows.length; i += size) chunks.push(rows.slice(i, i + size));
  return chunks;
}

/**
 * Inserts any number of rows with one statement: the rows travel as one JSON parameter, read back
 * by `json_each`. D1 binds at most 100 parameters a statement, and every statement of a batch is
 * prepared on its own, so a busy writer (the webhook lanes write thousands of attempt rows a
 * second) pays one prepare per batch instead of one per row. Values go through each column's own
 * driver mapping first; a column holding bytes cannot travel in JSON and is refused, and so is a
 * missing value of a column with a database default.
 */
export function insertRowsAsJson<Table extends SQLiteTable>(db: Database, table: Table, rows: Table["$inferInsert"][]) {
  // The columns an insert writes, in the order drizzle lists them for `insert … select`.
  const columns = (Object.entries(getTableColumns(table)) as [string, Column][]).filter(([, column]) => !column.generated);
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
  return db.insert(table).select(sql`select ${values} from json_each(${JSON.stringify(records)})`);
}
