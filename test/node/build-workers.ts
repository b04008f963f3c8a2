import { buildWorkers } from "../../scripts/lib/stack.mjs";

/**
 * The pages project's global setup: the Workers' bundles its files' stacks load, built once per run.
 * Each file building them itself cost two wrangler builds a file, and two files at once wrote the
 * same output directory.
 */
export default function setup() {
  buildWorkers();
}
