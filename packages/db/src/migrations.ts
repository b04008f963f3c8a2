// The one migration applier: tests, the benchmark stack and local development apply the SQL files of
// `migrations/` through it, to the control D1 and to every shard of every region. It keeps wrangler's
// own bookkeeping (`d1_migrations`), so `wrangler d1 migrations apply --remote` (deploy, where no
// binding reaches the database) continues exactly where it stopped and lists the same history.
// No extensionless imports: Node runs this file as it is.

/** A migration file: its name and its statements (`readD1Migrations` splits them as wrangler does). */
export interface Migration {
  name: string;
  queries: string[];
}

/**
 * Applies the migrations `database` (a Worker's binding, or miniflare's proxy of one in Node) has not
 * recorded yet, in order, each in one batch with its record, so a failing migration leaves nothing
 * half applied. Returns the names it applied.
 */
export async function applyMigrations(database: D1Database, migrations: Migration[]): Promise<string[]> {
  // wrangler's own table, column for column.
  await database
    .prepare(
      `CREATE TABLE IF NOT EXISTS d1_migrations (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT UNIQUE,
        applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL
      )`,
    )
    .run();
  const { results } = await database.prepare("SELECT name FROM d1_migrations").all<{ name: string }>();
  const applied = new Set(results.map((row) => row.name));
  const pending = migrations.filter((migration) => !applied.has(migration.name));
  for (const migration of pending) {
    await database.batch([
      ...migration.queries.map((query) => database.prepare(query)),
      database.prepare("INSERT INTO d1_migrations (name) VALUES (?)").bind(migration.name),
    ]);
  }
  return pending.map((migration) => migration.name);
}
