import { readFileSync } from "node:fs";
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

    expect(sizes.map((size) => size.worker).sort()).toEqual([...plan.deployOrder].sort());
    for (const size of sizes) expect(size.gzipBytes, `${size.worker} gzipped`).toBeLessThanOrEqual(bundleBudgetBytes);
    expect(printed.join("\n")).toMatch(/crm-gateway\s+[\d.]+ KiB/);

    const regional = JSON.parse(readFileSync("workers/api/wrangler.eu.production.jsonc", "utf8").replace(/^\/\/.*\n/, ""));
    expect(regional.vars).toEqual({ REGION: "eu", PUBLIC_ORIGIN: "https://api.example.com" });
    const gateway = JSON.parse(readFileSync("wrangler.production.jsonc", "utf8").replace(/^\/\/.*\n/, ""));
    expect(gateway.routes).toEqual([{ pattern: "api.example.com", custom_domain: true }]);
    expect(gateway.observability).toEqual({ enabled: true });
  }, 180_000);
});
