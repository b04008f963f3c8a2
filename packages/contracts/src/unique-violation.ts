/** SQLite's `UNIQUE constraint failed: t.a, t.b` (also for a primary key), on an error or one of its causes. */
const uniqueConstraintFailed = /UNIQUE constraint failed: ([a-z_]+)\.[a-z_]+(?:, [a-z_]+\.[a-z_]+)*/;

export interface UniqueViolation {
  table: string;
  /** The constraint's columns in index order: our unique indexes list the scope first, the unique value last. */
  columns: string[];
}

/**
 * The unique constraint that refused a write, if that is why `error` was thrown: the one reading of
 * D1's failures that every caller shares (409 `conflict`, a replayed nonce, a delivery that lost a
 * race). Only the constraint's text is read: drizzle's own message carries the SQL parameters.
 */
export function uniqueViolation(error: unknown): UniqueViolation | undefined {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 5; cause = cause.cause, depth++) {
    const match = uniqueConstraintFailed.exec(cause.message);
    if (match)
      return { table: match[1] as string, columns: [...match[0].matchAll(/\.([a-z_]+)/g)].map((column) => column[1] as string) };
  }
  return undefined;
}
