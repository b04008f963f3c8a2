import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

export default defineConfig({
  plugins: [cloudflareTest({ wrangler: { configPath: "./test/wrangler.jsonc" } })],
  // The lease simulations run thousands of simulated requests each; 30 s is a hang guard (as in the
  // stack project), not a time budget: vitest's 5 s default failed them on a loaded 2-core machine.
  test: { name: "rate-limiter", include: ["test/**/*.test.ts"], testTimeout: 30_000 },
});
