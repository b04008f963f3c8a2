import { fillPlaceholders, is, Placeholder, type SQL } from "drizzle-orm";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import type { Database } from "./database";

/**
 * Statements compiled once and run many times. Turning drizzle's SQL tree into text cost a read
 * about as much as D1 running it (the records query, issue 30), so a statement whose text depends
 * only on the shape of a request (which operators, which column types, which sort directions) is
 * compiled on its shape's first use with every value a `sql.placeholder(name)`, and kept for the
 * isolate's life. Each run only fills the placeholders; D1 sees the same text for every request of
 * a shape, whichever tenant sends it, so SQLite reuses its prepared statement too.
 */
const dialect = new SQLiteAsyncDialect();

export interface CompiledStatement {
  readonly text: string;
  /** The placeholders, in the order of the text's `?`. */
  readonly params: readonly Placeholder<string>[];
  /** The statement prepared on each database binding it ran on. */
  readonly prepared: WeakMap<D1Database, D1PreparedStatement>;
}

/** Compiles a statement whose every value is a placeholder (a literal value would be baked into every later run). */
export function compileStatement(statement: SQL): CompiledStatement {
  const { sql: text, params } = dialect.sqlToQuery(statement);
  const placeholders = params.filter((param): param is Placeholder<string> => is(param, Placeholder));
  if (placeholders.length !== params.length) throw new Error("A compiled statement takes its values as placeholders only");
  return { text, params: placeholders, prepared: new WeakMap() };
}

/** One statement compiled on first use (not at the isolate's start, which every cold request waits for). */
export function compiledOnce(build: () => SQL): () => CompiledStatement {
  let compiled: CompiledStatement | undefined;
  return () => {
    compiled ??= compileStatement(build());
    return compiled;
  };
}

/**
 * Statements by shape, compiled on a shape's first use. At most `capacity` are kept (the oldest
 * compiled goes first): shapes come from requests, so their number is bounded here, not by clients.
 */
export class StatementsByShape {
  private readonly compiled = new Map<string, CompiledStatement>();

  constructor(private readonly capacity: number) {}

  get(shape: string, build: () => SQL): CompiledStatement {
    let statement = this.compiled.get(shape);
    if (!statement) {
      statement = compileStatement(build());
      if (this.compiled.size >= this.capacity) this.compiled.delete(this.compiled.keys().next().value as string);
      this.compiled.set(shape, statement);
    }
    return statement;
  }
}

/**
 * A drizzle query prepared once per database, its values `sql.placeholder`s: drizzle writes its SQL
 * once, not on every run. For a read whose rows drizzle maps into nested objects (a table's columns
 * as one object), which a compiled statement would leave to be mapped again by hand.
 */
export function preparedOnce<Prepared>(prepare: (db: Database) => Prepared): (db: Database) => Prepared {
  const prepared = new WeakMap<Database, Prepared>();
  return (db) => {
    let query = prepared.get(db);
    if (query === undefined) {
      query = prepare(db);
      prepared.set(db, query);
    }
    return query;
  };
}

/** The statement bound to `values` (by placeholder name), prepared once per database binding. */
export function boundStatement(db: Database, statement: CompiledStatement, values: Record<string, unknown>) {
  const client = db.$client;
  const prepared = statement.prepared.get(client) ?? client.prepare(statement.text);
  statement.prepared.set(client, prepared);
  return prepared.bind(...fillPlaceholders([...statement.params], values));
}

/** The rows of a compiled statement, as D1 gives them (column names as selected). */
export async function compiledRows<Row>(db: Database, statement: CompiledStatement, values: Record<string, unknown>) {
  return (await boundStatement(db, statement, values).all<Row>()).results;
}
