import { regions } from "@crm/contracts";
import { fromJsonSchema, type McpServer } from "@modelcontextprotocol/server";
import type { McpCaller } from "./tool-call";

/**
 * Tools that are not routes (DESIGN.md section 11): free and not booked, since they read nothing but
 * what authentication already established; like every MCP request, a call counts in the caller's
 * identity and API key windows (`admitCaller`, at the endpoint).
 */

export const utilityToolNames = ["auth_whoami"];

const idString = { type: "string", minLength: 1 };

const whoamiResult = fromJsonSchema({
  type: "object",
  properties: {
    organizationId: idString,
    region: { type: "string", enum: [...regions] },
    actor: {
      type: "object",
      properties: { type: { type: "string", enum: ["user", "app", "agent"] }, id: idString },
      required: ["type", "id"],
    },
    credential: {
      type: "object",
      properties: { type: { type: "string", enum: ["api_key", "oauth"] }, id: idString },
      required: ["type", "id"],
      description: "The API key's id, or the OAuth grant's",
    },
    scopes: { type: "array", items: { type: "string" } },
    workspaceIds: {
      anyOf: [{ type: "array", items: idString }, { type: "null" }],
      description: "The credential's workspace limit; null: every workspace the actor can access",
    },
    organizationRole: { anyOf: [{ type: "string", enum: ["owner", "admin", "member"] }, { type: "null" }] },
  },
  required: ["organizationId", "region", "actor", "credential", "scopes", "workspaceIds", "organizationRole"],
});

export function registerUtilityTools(server: McpServer, caller: McpCaller, wanted: (name: string) => boolean): void {
  if (!wanted("auth_whoami")) return;
  server.registerTool(
    "auth_whoami",
    {
      title: "Who am I",
      description:
        "The organization, region, actor, credential, scopes and workspace limit this connection acts with. Free: no token cost; counts in your identity and API key rate-limit windows.",
      outputSchema: whoamiResult,
      annotations: { title: "Who am I", readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    () => {
      const { organizationId, region, actor, credential, scopes, workspaceIds, organizationRole } = caller.actor;
      const identity = { organizationId, region, actor, credential, scopes, workspaceIds, organizationRole };
      return { content: [{ type: "text", text: JSON.stringify(identity) }], structuredContent: identity };
    },
  );
}
