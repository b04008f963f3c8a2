import { type DrizzleD1Database, drizzle } from "drizzle-orm/d1";

const databases = new WeakMap<D1Database, DrizzleD1Database & { $client: D1Database }>();

/**
 * The drizzle database of a D1 binding, made once per binding (an isolate's requests share their
 * bindings): building one (dialect, session, query builders) on every request was part of what each
 * request paid before any statement ran (issue 30's profile of both Workers). It holds no state of
 * a request, so sharing it changes nothing a request sees.
 */
export function databaseOf(binding: D1Database): DrizzleD1Database & { $client: D1Database } {
  let database = databases.get(binding);
  if (!database) {
    database = drizzle(binding);
    databases.set(binding, database);
  }
  return database;
}
