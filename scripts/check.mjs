// `pnpm run check` (what `npm test` runs): every check of the project, the independent ones at the
// same time, each step's time printed at the end (docs/testing.md reads them).
//   1. The regional build (the tests load it), Biome and both type checks, side by side: each is
//      short and mostly one core.
//   2. vitest alone: its two pool workers keep both cores busy, and checks beside it slowed it by
//      about their own time (fresh clones: vitest 265 s and 291 s alone, 295-322 s with the type
//      checks, the OpenAPI lint and the MCP checks beside it; 234 s alone in a warm checkout).
//   3. The OpenAPI lint and the MCP checks (a dev stack of their own), side by side.
// Every stage runs even when an earlier one failed, so that one run shows every failure; a step's
// output is printed when it ends (vitest's as it runs); the run fails if any step failed.
import { spawn } from "node:child_process";

const stages = [
  [
    ["build:regions", "pnpm", ["run", "--silent", "build:regions"]],
    ["biome", "biome", ["ci", "--error-on-warnings", "."]],
    ["tsc", "tsc", ["-p", "."]],
    ["tsc test/node", "tsc", ["-p", "test/node"]],
  ],
  [["vitest", "vitest", ["run"], { live: true }]],
  [
    ["lint:openapi", "pnpm", ["run", "--silent", "lint:openapi"]],
    ["check:mcp", "pnpm", ["run", "--silent", "check:mcp"]],
  ],
];

const timings = [];

/** Runs one step; resolves to whether it passed. */
function run([name, command, args, { live = false } = {}]) {
  const started = Date.now();
  return new Promise((done) => {
    const child = spawn(command, args, { stdio: live ? "inherit" : ["ignore", "pipe", "pipe"] });
    let output = "";
    if (!live) {
      child.stdout.on("data", (chunk) => {
        output += chunk;
      });
      child.stderr.on("data", (chunk) => {
        output += chunk;
      });
    }
    child.on("close", (code) => {
      const seconds = (Date.now() - started) / 1000;
      timings.push({ name, seconds, passed: code === 0 });
      if (output) process.stdout.write(`\n── ${name} ──\n${output}`);
      done(code === 0);
    });
  });
}

const started = Date.now();
let passed = true;
for (const stage of stages) {
  const results = await Promise.all(stage.map(run));
  passed = results.every(Boolean) && passed;
}
console.log("\n── check: seconds per step ──");
for (const { name, seconds, passed: ok } of timings) console.log(`${ok ? " " : "✗"} ${seconds.toFixed(1).padStart(7)}  ${name}`);
console.log(`  ${((Date.now() - started) / 1000).toFixed(1).padStart(7)}  in all`);
process.exit(passed ? 0 : 1);
