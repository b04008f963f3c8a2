// The baseline every section is read against: a bare Hono handler doing one D1 read by key, on the
// same runtime (`bench/bare-worker.ts`, built by scripts/bench.mjs), in a workerd process of its own.
import { convertV4MiniflareOptions, Miniflare } from "miniflare";
import { buildDir } from "../scripts/lib/stack.mjs";
import { seedItems } from "./floor.mjs";

export async function startBare() {
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      host: "127.0.0.1",
      port: 0,
      workers: [
        {
          name: "bare",
          modules: true,
          scriptPath: `${buildDir}/bare/index.js`,
          compatibilityDate: "2026-11-01",
          d1Databases: { DB: "bench-bare" },
          durableObjects: { COUNTER: { className: "Counter", useSQLite: true } },
        },
      ],
    }),
  );
  const url = await mf.ready;
  await seedItems(await mf.getD1Database("DB"));
  return { mf, url: new URL("/items/item_500", url).href, countedUrl: new URL("/counted/items/item_500", url).href };
}
