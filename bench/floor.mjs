// Pipeline scenario (e): the two-Worker floor. A bare gateway Worker forwards over a service binding
// to the bare regional handler (one D1 read, as in (a)): the least any gateway-plus-region design
// costs on this runtime, against which the full pipeline (b) is read.
import { build } from "esbuild";
import { convertV4MiniflareOptions, Miniflare } from "miniflare";
import { alternatingRounds } from "./rounds.mjs";

/** The thousand items the bare handlers read one of, in a database of their own. */
export async function seedItems(db) {
  await db.exec("create table if not exists items (id text primary key, name text not null, created_at integer not null)");
  await db.batch(
    Array.from({ length: 1000 }, (_, i) =>
      db.prepare("insert or ignore into items values (?, ?, ?)").bind(`item_${i}`, `Item ${i}`, Date.now()),
    ),
  );
}

/** `inspectorPort` opens workerd's inspector (`bench/profile-pipeline.mjs --floor`). */
export async function startFloor(buildDir, { inspectorPort } = {}) {
  const scriptPath = `${buildDir}/floor-gateway/index.js`;
  await build({ entryPoints: ["bench/floor-gateway.ts"], bundle: true, format: "esm", outfile: scriptPath, logLevel: "warning" });
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      host: "127.0.0.1",
      port: 0,
      inspectorPort,
      workers: [
        {
          name: "floor-gateway",
          modules: true,
          scriptPath,
          compatibilityDate: "2026-11-01",
          serviceBindings: { REGION: "floor-region" },
        },
        {
          name: "floor-region",
          modules: true,
          scriptPath: `${buildDir}/bare/index.js`,
          compatibilityDate: "2026-11-01",
          d1Databases: { DB: "bench-floor" },
          durableObjects: { COUNTER: { className: "Counter", useSQLite: true } },
        },
      ],
    }),
  );
  const url = await mf.ready;
  await seedItems(await mf.getD1Database("DB", "floor-region"));
  return { mf, url: new URL("/items/item_500", url).href };
}

/**
 * (b) against (e), with (a) in the same rounds, at c=1 and c=32 (the ratios are medians of
 * per-round ratios, so a shared machine's load falls on all three alike), printed as rows and the two
 * targets. (a) is measured here again because (a) measured alone, at the section's start, and (e)
 * measured in rounds are not comparable: read that way, the two-Worker (e) came out 1 ms faster than
 * the one-Worker (a) it wraps, which in the same rounds it never is; `e - a` is the hop itself.
 */
export async function floorComparison({ pipeline, bareUrl, floorUrl, durationMs, row }) {
  const measured = {};
  for (const connections of [1, 32]) {
    measured[connections] = await alternatingRounds(
      { bare: { url: bareUrl }, pipeline, floor: { url: floorUrl } },
      { connections, durationMs },
    );
    console.log(
      row(`(a) bare Hono + 1 D1 read, in rounds with (b), (e), c=${connections}`, measured[connections].figure("bare")),
    );
    console.log(row(`(b) full pipeline, in rounds with (a), (e), c=${connections}`, measured[connections].figure("pipeline")));
    console.log(row(`(e) bare gateway -> service binding -> (a), c=${connections}`, measured[connections].figure("floor")));
  }
  const p50 = (connections, name) => measured[connections].figure(name).p50;
  console.log(`
ratio b/e throughput at c=32 (median of rounds): ${measured[32].ratio("pipeline", "floor", "rps").toFixed(2)} (target >= 0.8)
added p50 (b - e) at c=1 (medians of rounds): ${(p50(1, "pipeline") - p50(1, "floor")).toFixed(2)} ms (target <= 0.5 ms)
the hop's p50 (e - a) at c=1, same rounds: ${(p50(1, "floor") - p50(1, "bare")).toFixed(2)} ms; e/a throughput at c=32: ${measured[32].ratio("floor", "bare", "rps").toFixed(2)}
`);
}
