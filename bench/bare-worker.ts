import { Hono } from "hono";

/**
 * The benchmark's baseline: a bare Hono handler on the same runtime doing what the full pipeline's
 * regional handler does at minimum, one D1 read by key. Compared against the full pipeline in the
 * same run, so machine noise cancels out of the ratio.
 */
const app = new Hono<{ Bindings: { DB: D1Database } }>();

app.get("/items/:id", async (c) => {
  const item = await c.env.DB.prepare("select id, name, created_at from items where id = ?").bind(c.req.param("id")).first();
  return item ? c.json({ item }) : c.json({ error: "not found" }, 404);
});

export default app;
