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

export async function startFloor(buildDir) {
  const scriptPath = `${buildDir}/floor-gateway/index.js`;
  await build({ entryPoints: ["bench/floor-gateway.ts"], bundle: true, format: "esm", outfile: scriptPath, logLevel: "warning" });
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      host: "127.0.0.1",
      port: 0,
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
 * (b) against (e) in alternating rounds at c=1 and c=32 (the ratios are medians of per-round
 * ratios, so a shared machine's load falls on both alike), printed as rows and the two targets.
 */
export async function floorComparison({ pipeline, floorUrl, durationMs, row }) {
  const measured = {};
  for (const connections of [1, 32]) {
    measured[connections] = await alternatingRounds({ pipeline, floor: { url: floorUrl } }, { connections, durationMs });
    console.log(row(`(b) full pipeline, in rounds with (e), c=${connections}`, measured[connections].figure("pipeline")));
    console.log(row(`(e) bare gateway -> service binding -> (a), c=${connections}`, measured[connections].figure("floor")));
  }
  const addedP50 = measured[1].figure("pipeline").p50 - measured[1].figure("floor").p50;
  console.log(`
ratio b/e throughput at c=32 (median of rounds): ${measured[32].ratio("pipeline", "floor", "rps").toFixed(2)} (target >= 0.8)
added p50 (b - e) at c=1 (medians of rounds): ${addedP50.toFixed(2)} ms (target <= 0.5 ms)
`);
}
