// npm run deploy -- --env production --origin https://api.example.com [--yes]
// npm run deploy -- --env production --dry-run        (offline: the plan, and every bundle within budget)
// What it does and how to re-run it: docs/deploy.md.
import { parseArgs } from "node:util";
import { deploy } from "./lib/deploy.ts";

const { values } = parseArgs({
  options: {
    env: { type: "string" },
    origin: { type: "string" },
    "dry-run": { type: "boolean", default: false },
    yes: { type: "boolean", default: false },
  },
});
// One environment exists; naming it keeps a bare `npm run deploy` from touching production by accident.
if (values.env !== "production") {
  console.error("usage: npm run deploy -- --env production [--origin https://<gateway host>] [--dry-run] [--yes]");
  process.exit(2);
}
try {
  await deploy({ origin: values.origin ?? null, dryRun: values["dry-run"], yes: values.yes });
} catch (error) {
  console.error(`\ndeploy: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
