// `pnpm run check` (what `npm test` runs): every check of the project, the independent ones at the
// same time, each step's time printed at the end (docs/testing.md reads them).
//   1. The regional build, which the tests and the MCP checks load.
//   2. vitest, beside Biome and both type checks, then the OpenAPI lint and the MCP checks against a
//      dev stack of their own: the tests wait on timers and receivers much of the time, so the
//      second core is not idle, and vitest's own last minutes run few files.
// A step's output is printed when it ends (vitest's as it runs); the run fails if any step failed.
import { spawn } from "node:child_process";

const stages = [
  [["build:regions", "pnpm", ["run", "--silent", "build:regions"]]],
  [
    ["vitest", "vitest", ["run"], { live: true }],
    [
      ["biome", "biome", ["ci", "--error-on-warnings", "."]],
      ["tsc", "tsc", ["-p", "."]],
      ["tsc test/node", "tsc", ["-p", "test/node"]],
      ["lint:openapi", "pnpm", ["run", "--silent", "lint:openapi"]],
      ["check:mcp", "pnpm", ["run", "--silent", "check:mcp"]],
    ],
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

/** A step, or a list of steps run one after another (each of them, so that one run shows every failure). */
async function runStep(step) {
  if (typeof step[0] === "string") return run(step);
  let passed = true;
  for (const inner of step) passed = (await run(inner)) && passed;
  return passed;
}

const started = Date.now();
let passed = true;
for (const stage of stages) {
  const results = await Promise.all(stage.map(runStep));
  passed = results.every(Boolean);
  if (!passed) break;
}
console.log("\n── check: seconds per step ──");
for (const { name, seconds, passed: ok } of timings) console.log(`${ok ? " " : "✗"} ${seconds.toFixed(1).padStart(7)}  ${name}`);
console.log(`  ${((Date.now() - started) / 1000).toFixed(1).padStart(7)}  in all`);
process.exit(passed ? 0 : 1);
