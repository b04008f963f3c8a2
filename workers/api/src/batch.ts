import type { BatchItem } from "drizzle-orm/batch";
import type { Database } from "./env";

/** Runs statements as one D1 batch (one transaction): all of them or none. Nothing to run is fine. */
export async function runBatch(db: Database, statements: BatchItem<"sqlite">[]): Promise<void> {
  const [first, ...rest] = statements;
  if (first) await db.batch([first, ...rest]);
}
