import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

export default defineConfig({
  plugins: [cloudflareTest({ wrangler: { configPath: "./test/wrangler.jsonc" } })],
  // The lease simulations run thousands of simulated requests each; 30 s is a hang guard (as in the
  // stack project), not a time budget: vitest's 5 s default failed them on a loaded 2-core machine.
  // Two files at a time, as the root config's other projects: a project of its own config file does
  // not inherit the root's `maxWorkers`, and with vitest's default of one on two cores its files ran
  // one by one after every other project's.
  test: { name: "rate-limiter", include: ["test/**/*.test.ts"], testTimeout: 30_000, maxWorkers: 2 },
});
