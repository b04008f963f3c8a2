import type { BatchItem } from "drizzle-orm/batch";
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
