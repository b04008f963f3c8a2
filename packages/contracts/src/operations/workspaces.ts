import { z } from "@hono/zod-openapi";
import { idSchema, timestampMs } from "../ids";
import { costUnits, defineOperation, jsonResponse } from "../operation";
import { listResponse, pageQuery } from "../pagination";
import { outputText } from "../strings";

export const workspaceRoles = ["owner", "admin", "manager", "member", "viewer"] as const;
export type WorkspaceRole = (typeof workspaceRoles)[number];

export const workspaceSchema = z
  .object({
    id: idSchema("ws"),
    organizationId: idSchema("org"),
    name: outputText(),
    description: outputText(1_000).optional(),
    role: z
      .enum(workspaceRoles)
      .nullable()
      .openapi({ description: "Effective role for user actors; null for application and agent actors." }),
    isInheritedAccess: z
      .boolean()
      .openapi({ description: "True when access comes from the organization rather than a workspace membership." }),
    createdAt: timestampMs,
    updatedAt: timestampMs,
  })
  .openapi("Workspace");

export type Workspace = z.infer<typeof workspaceSchema>;

export const listWorkspaces = defineOperation({
  operationId: "listWorkspaces",
  tag: "Workspaces",
  summary: "List workspaces",
  description:
    "Workspaces the authenticated actor can access in the current organization, narrowed by the key's workspace limit. Ordered by creation time.",
  scope: null,
  costUnits: costUnits.free,
  mcpTool: "workspaces_list",
  method: "get",
  path: "/workspaces",
  request: { query: z.object(pageQuery).strict() },
  responses: { 200: jsonResponse("A page of workspaces", listResponse(workspaceSchema)) },
});
