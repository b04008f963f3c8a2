/**
 * The MCP SDK's platform module for this Worker (`[alias]` in wrangler.toml), in place of its
 * workerd one, which builds every protocol schema of the SDK at module scope (`preloadSchemas`): a
 * third of the gateway's script evaluation spent for a request most isolates never serve, against
 * Cloudflare's startup limit (issue 30 item 7). Without it the SDK builds the schemas a request uses
 * on first use, as it does in Node. Everything else is the SDK's own: its JSON Schema validator for
 * Workers (`@cfworker/json-schema`).
 */
export { CfWorkerJsonSchemaValidator as DefaultJsonSchemaValidator } from "@modelcontextprotocol/server/validators/cf-worker";
