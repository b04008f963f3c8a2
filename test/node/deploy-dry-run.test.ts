import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { dryRun } from "../../scripts/lib/deploy.ts";
import { bundleBudgetBytes } from "../../scripts/lib/deploy-plan.ts";

/**
 * The deploy's dry run, as CI runs it (`npm test`): every Worker bundled by `wrangler deploy --dry-run`
 * from its production configuration, offline. A Worker over its budget fails here, naming its size.
 */
describe("npm run deploy -- --env production --dry-run", () => {
  it("bundles every Worker within 600 KiB gzipped, from production configurations without a development switch", () => {
    const printed: string[] = [];
    const { plan, sizes } = dryRun("https://api.example.com", (line) => printed.push(line));
    console.log(printed.join("\n"));

    // Every Worker but the assets-only one (static files, no script) has a bundle.
    const scripted = plan.deployOrder.filter((worker) => worker !== "crm-docs-assets");
    expect(sizes.map((size) => size.worker).sort()).toEqual([...scripted].sort());
    for (const size of sizes) expect(size.gzipBytes, `${size.worker} gzipped`).toBeLessThanOrEqual(bundleBudgetBytes);
    expect(printed.join("\n")).toMatch(/crm-gateway\s+[\d.]+ KiB/);

    const regional = JSON.parse(readFileSync("workers/api/wrangler.eu.production.jsonc", "utf8").replace(/^\/\/.*\n/, ""));
    expect(regional.vars).toEqual({ REGION: "eu", PUBLIC_ORIGIN: "https://api.example.com" });
    const gateway = JSON.parse(readFileSync("wrangler.production.jsonc", "utf8").replace(/^\/\/.*\n/, ""));
    expect(gateway.routes).toEqual([{ pattern: "api.example.com", custom_domain: true }]);
    expect(gateway.observability).toEqual({ enabled: true });

    // The demo seed and the other /__dev routes are left out of the production bundles, not only switched
    // off: "Initech" (the seed's third organization, in both Workers' seed code) stands for them.
    const marker = "Initech";
    for (const seedSource of ["workers/gateway/src/seed/demo.ts", "workers/api/src/seed/demo-data.ts"])
      expect(readFileSync(seedSource, "utf8"), seedSource).toContain(marker);
    for (const worker of scripted) {
      const outdir = join(".wrangler/release", worker);
      const bundled = readdirSync(outdir)
        .filter((file) => file.endsWith(".js"))
        .map((file) => readFileSync(join(outdir, file), "utf8"));
      expect(bundled.length, `${worker} bundle files`).toBeGreaterThan(0);
      for (const code of bundled) {
        expect(code.includes(marker), `${worker} bundles seed code`).toBe(false);
        expect(code.includes("/rate-limiter-calls"), `${worker} bundles a /__dev route`).toBe(false);
      }
    }
  }, 180_000);
});
