import { env } from "cloudflare:test";
import { control, regional } from "@crm/db";
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { getTableConfig, type SQLiteTable } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";

/** The hand-written migrations and the drizzle schema describe the same tables, column for column. */
async function columnsIn(database: D1Database, table: string) {
  // Raw SQL: drizzle's query builder has no pragma; the table name is still a bound parameter.
  const results = await drizzle(database).all<{ name: string; required: number; pk: number }>(
    sql`select name, "notnull" as required, pk from pragma_table_info(${table})`,
  );
  return results
    .map((column) => ({ name: column.name, notNull: column.required === 1 || column.pk > 0 }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

const tablesOf = (schema: Record<string, unknown>) =>
  Object.values(schema).filter(
    (value): value is SQLiteTable => typeof value === "object" && value !== null && Symbol.for("drizzle:IsDrizzleTable") in value,
  );

describe.each([
  { plane: "control", schema: control, database: () => env.CONTROL_DB },
  { plane: "regional", schema: regional, database: () => env.US_DB_1 },
])("$plane schema matches its migrations", ({ schema, database }) => {
  it.each(tablesOf(schema).map((table) => ({ name: getTableConfig(table).name, table })))("$name", async ({ table }) => {
    const config = getTableConfig(table);
    const expected = config.columns
      .map((column) => ({
        name: column.name,
        notNull: column.notNull || column.primary || config.primaryKeys.some((key) => key.columns.includes(column)),
      }))
      .sort((a, b) => a.name.localeCompare(b.name));
    expect(await columnsIn(database(), config.name)).toEqual(expected);
  });
});
