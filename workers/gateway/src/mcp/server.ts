import { apiVersion } from "@crm/contracts";
import { McpServer } from "@modelcontextprotocol/server";
import { routeToolNamed, routeTools } from "./route-tools";
import { callRouteTool, type McpCaller } from "./tool-call";
import { registerUtilityTools, utilityToolNames } from "./utility-tools";

const instructions =
  "Every route of the CRM and inbox REST API that takes a bearer token is a tool here, with the same arguments (path, query and body in one object), scopes, rate limits and token costs. List tools return one page `{ data, pagination }`: call again with `cursor` until `pagination.hasMore` is false. Writes take an `idempotencyKey` (required by records_create) so a retry never writes twice. Sending tools answer with a preview unless `sendMode` is `send` (or `draft`). Failures are results with isError and the API's error body `{ error: { code, message, requestId, details? } }`, each detail's `path` naming your argument (`fields.email`).";

/** The server's identity, which the SDK also stamps on every 2026-era result (`_meta`). */
export const serverInfo = { name: "crm-api", title: "CRM and inbox API", version: apiVersion };

/**
 * The tool a `tools/call` names. Registering every tool of the catalogue costs about a millisecond
 * per request, as much as the rest of the SDK's work, so a call gets a server with its own tool only;
 * `tools/list` and every other method get them all.
 */
export function calledTool(message: unknown): string | null {
  const { method, params } = (message ?? {}) as { method?: unknown; params?: { name?: unknown } };
  const name = method === "tools/call" ? params?.name : null;
  return typeof name === "string" ? name : null;
}

/** One server per request (stateless): the catalogue's tools and the utility tools, bound to this caller. */
export function mcpServer(caller: McpCaller, only: string | null): McpServer {
  // A stateless endpoint never sends `notifications/tools/list_changed`, so it does not declare it (the SDK would).
  const server = new McpServer(serverInfo, { instructions, capabilities: { tools: { listChanged: false } } });
  const called = only === null ? undefined : routeToolNamed(caller.origin, only);
  // A call of a tool that does not exist gets them all, and the SDK's "not found" protocol error.
  const exists = only !== null && (utilityToolNames.includes(only) || called !== undefined);
  const tools = !exists ? routeTools(caller.origin) : called ? [called] : [];
  const wanted = (name: string) => !exists || name === only;
  for (const tool of tools) {
    if (!wanted(tool.name)) continue;
    const { title, description, inputSchema, outputSchema, annotations } = tool;
    // A call's server validates no output: its structured content is the route's JSON answer, whose
    // schema the output schema is (and which clients check against `tools/list`); walking it again
    // cost a tenth of a call's CPU (issue 30). The listing still declares every output schema.
    const declaredOutput = outputSchema && !exists ? { outputSchema } : {};
    server.registerTool(tool.name, { title, description, inputSchema, annotations, ...declaredOutput }, (args) =>
      callRouteTool(caller, tool, args),
    );
  }
  registerUtilityTools(server, caller, wanted);
  return server;
}
