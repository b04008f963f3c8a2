import { DurableObject } from "cloudflare:workers";
import { webhookHeaders } from "@crm/contracts";
import { Hono } from "hono";

/**
 * The benchmark's baselines, on the same runtime as the pipeline: a bare Hono handler doing what
 * the regional handler does at minimum, one D1 read by key; and the same plus five parallel calls
 * to a Durable Object that only counts in memory, to show what the rate limiter's five calls per
 * request cost on this runtime before any limiter logic runs. And the webhook baseline: a loop that
 * signs events with the platform's own signing code and POSTs them to a receiver, `concurrency` at
 * a time, with nothing else around it.
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

app.post("/sign-and-post", async (c) => {
  const { url, secret, count, concurrency } = await c.req.json<{
    url: string;
    secret: string;
    count: number;
    concurrency: number;
  }>();
  let next = 0;
  const post = async (i: number) => {
    const payload = JSON.stringify({ type: "record.created", data: { id: `rec_${i}` } });
    const headers = await webhookHeaders([secret], `msg_bare_${i}`, Math.floor(Date.now() / 1000), payload);
    const answer = await fetch(url, { method: "POST", headers, body: payload });
    await answer.body?.cancel();
  };
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await post(next++);
    }),
  );
  return c.json({ posted: count });
});

export default app;
