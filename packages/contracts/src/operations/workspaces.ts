import { z } from "@hono/zod-openapi";
import { idSchema, pathId, timestampMs } from "../ids";
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

export const inboxAccessLevels = ["all", "record_read", "record_reply"] as const;

export const workspaceMemberSchema = z
  .object({
    id: z
      .string()
      .min(6)
      .max(73)
      .regex(/^(usr|agt)_[0-9a-z]{3,64}$/)
      .openapi({ description: "A user (`usr_…`) or an agent (`agt_…`)", example: "usr_01jd5q0m4x8r2w3y6z7a9b" }),
    type: z.enum(["user", "agent"]),
    name: outputText(),
    email: z
      .string()
      .max(254)
      .nullable()
      .openapi({ format: "email", description: "The user's address; null for agents", example: "bob@acme.example" }),
    role: z.enum(workspaceRoles).nullable().openapi({ description: "The effective role in the workspace; null for agents" }),
    isInheritedAccess: z.boolean().openapi({
      description: "True for organization admins and owners who reach the workspace without a membership, and for agents",
    }),
    inboxAccess: z.enum(inboxAccessLevels).openapi({
      description:
        "`all`, or only conversations linked to a record (`record_read`: read, `record_reply`: read and reply); `all` for organization admins, owners and agents",
    }),
  })
  .openapi("WorkspaceMember");

export type WorkspaceMember = z.infer<typeof workspaceMemberSchema>;

export const listWorkspaceMembers = defineOperation({
  operationId: "listWorkspaceMembers",
  tag: "Workspaces",
  summary: "List a workspace's members",
  description:
    "Everyone who can act in the workspace: its members, the organization's admins and owners (`isInheritedAccess: true`) and the organization's agents, ordered by id. The ids a client sends as assignees come from here, and every person shown inside a resource (conversation and task `assignees`) is read from the same directory: a changed name shows everywhere at once.",
  scope: "members:read",
  costUnits: costUnits.read,
  mcpTool: "workspaces_members_list",
  method: "get",
  path: "/workspaces/{workspaceId}/members",
  request: {
    params: z.object({ workspaceId: pathId("workspaceId", "ws") }),
    query: z.object(pageQuery).strict(),
  },
  responses: { 200: jsonResponse("A page of the workspace's members", listResponse(workspaceMemberSchema)) },
});
