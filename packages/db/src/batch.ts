import type { BatchItem } from "drizzle-orm/batch";
import type { DrizzleD1Database } from "drizzle-orm/d1";

/**
 * Runs statements as one D1 batch (one transaction): all of them or none. Nothing to run is fine.
 * The one way both Workers write several rows at once; a fixed list whose results are read may still
 * call `db.batch` with its tuple.
 */
export async function runBatch(db: DrizzleD1Database, statements: BatchItem<"sqlite">[]): Promise<void> {
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
