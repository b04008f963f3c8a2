import { DurableObject } from "cloudflare:workers";
import { Hono } from "hono";

/**
 * The benchmark's baselines, on the same runtime as the pipeline: a bare Hono handler doing what
 * the regional handler does at minimum, one D1 read by key; and the same plus five parallel calls
 * to a Durable Object that only counts in memory, to show what the rate limiter's five calls per
 * request cost on this runtime before any limiter logic runs.
 */
export class Counter extends DurableObject {
  #count = 0;

  increment(): number {
    return ++this.#count;
  }
}

interface BareEnv {
  DB: D1Database;
  COUNTER: DurableObjectNamespace<Counter>;
}

const readItem = (env: BareEnv, id: string) =>
  env.DB.prepare("select id, name, created_at from items where id = ?").bind(id).first();

const app = new Hono<{ Bindings: BareEnv }>();

app.get("/items/:id", async (c) => {
  const item = await readItem(c.env, c.req.param("id"));
  return item ? c.json({ item }) : c.json({ error: "not found" }, 404);
});

app.get("/counted/items/:id", async (c) => {
  const keys = ["org", "actor", "key", "route", "platform"];
  await Promise.all(keys.map((key) => c.env.COUNTER.get(c.env.COUNTER.idFromName(key)).increment()));
  const item = await readItem(c.env, c.req.param("id"));
  return item ? c.json({ item }) : c.json({ error: "not found" }, 404);
});

export default app;
