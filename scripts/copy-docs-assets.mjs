// Copies Scalar's standalone build into the crm-docs-assets Worker's static assets (scripts/lib/docs-assets.mjs).
// `wrangler deploy -c workers/docs-assets/wrangler.toml` needs it there; dev, tests and benchmarks copy it themselves.
import { copyDocsAssets } from "./lib/docs-assets.mjs";

copyDocsAssets();
