import { z } from "@hono/zod-openapi";
import { deletedSchema, emptyBodySchema, idSchema, pathId } from "../ids";
import { costUnits, defineOperation, jsonBody, jsonResponse } from "../operation";
import { listResponse, pageQuery } from "../pagination";
import { defaulted } from "../request-defaults";
import { label, shortLabel } from "../strings";
import { inboxViewFilterSchema, inboxViewSchema } from "./inbox-schemas";

/** Saved inbox views (DESIGN.md section 8; the reference's Inbox view). */

// `viewId` already names record views in the catalogue (and the auth matrix keys ids by name).
const inboxViewParams = z.object({ inboxViewId: pathId("inboxViewId", "ivw") });
const inboxViewResponse = z.object({ view: inboxViewSchema });

const sortSchema = z.object({ field: z.enum(["lastMessageAtMs", "createdAt"]), direction: z.enum(["asc", "desc"]) }).strict();

/**
 * A view's filter and sorts as a client sends them: unknown properties at any level are 400, so a
 * misspelt filter never silently widens the view.
 */
export const inboxViewConfigInputSchema = z
  .object({
    filter: defaulted(inboxViewFilterSchema, {}, "What the view selects; every condition must hold."),
    sorts: defaulted(z.array(sortSchema).max(2), [], "Order of the list; none means newest message first."),
  })
  .strict()
  .openapi("InboxViewConfigInput");

const visibility = z.enum(["personal", "workspace", "restricted"]);
const memberUserIds = z
  .array(idSchema("usr"))
  .max(100)
  .openapi({ description: "Restricted views only: members of the workspace who see the view besides its creator." });

const writeNote =
  "`config.filter.assigneeUserIds` and `memberUserIds` must be members of the workspace and `config.filter.mailbox` one of its mailboxes (400 naming the path otherwise). Personal views are written by their creator (members and above); workspace and restricted views by managers and above. System views (`systemViewKey`) cannot change: 409 `system_resource`.";

const visibilityNote =
  "A caller sees the system views, the workspace views, their own personal views and the restricted views they created or are listed on; any other view is 404.";

export const listInboxViews = defineOperation({
  operationId: "listInboxViews",
  tag: "Inbox",
  summary: "List the inbox views the caller may see",
  description: `The system views (\`inbox\`, \`assigned_to_me\`, \`closed\`) first, then the others in the order they were made. ${visibilityNote}`,
  scope: "inbox:read",
  costUnits: costUnits.read,
  mcpTool: "inbox_views_list",
  method: "get",
  path: "/inbox/views",
  request: {
    query: z
      .object({ workspaceId: idSchema("ws").openapi({ param: { name: "workspaceId", in: "query" } }), ...pageQuery })
      .strict(),
  },
  responses: { 200: jsonResponse("A page of inbox views", listResponse(inboxViewSchema)) },
});

export const createInboxView = defineOperation({
  operationId: "createInboxView",
  tag: "Inbox",
  summary: "Create an inbox view",
  description: `A saved filter and order of the workspace's conversations. ${writeNote}`,
  scope: "inbox:write",
  costUnits: costUnits.write,
  mcpTool: "inbox_views_create",
  method: "post",
  path: "/inbox/views",
  resource: "/inbox/views/{inboxViewId}",
  request: {
    body: jsonBody(
      z
        .object({
          workspaceId: idSchema("ws"),
          name: label(),
          emoji: shortLabel(32).optional(),
          config: defaulted(inboxViewConfigInputSchema, { filter: {}, sorts: [] }, "The view's filter and sorts."),
          visibility: defaulted(visibility, "personal", "Who sees the view."),
          memberUserIds: memberUserIds.optional(),
        })
        .strict()
        .openapi("CreateInboxView", { example: { workspaceId: "ws_01jd5q0m4x8r2w3y6z7a9b", name: "Waiting on us" } }),
    ),
  },
  responses: { 201: jsonResponse("The created view", inboxViewResponse) },
});

export const updateInboxView = defineOperation({
  operationId: "updateInboxView",
  tag: "Inbox",
  summary: "Update an inbox view",
  description: `Any of the creation fields but the workspace; \`config\` replaces the whole configuration and \`memberUserIds\` the listed members. Leaving \`restricted\` drops the listed members. ${writeNote} ${visibilityNote}`,
  scope: "inbox:write",
  costUnits: costUnits.write,
  mcpTool: "inbox_views_update",
  method: "patch",
  path: "/inbox/views/{inboxViewId}",
  resource: "/inbox/views/{inboxViewId}",
  errors: ["system_resource"],
  request: {
    params: inboxViewParams,
    body: jsonBody(
      z
        .object({
          name: label().optional(),
          emoji: shortLabel(32).nullable().optional(),
          config: inboxViewConfigInputSchema.optional(),
          visibility: visibility.optional(),
          memberUserIds: memberUserIds.optional(),
        })
        .strict()
        .openapi("UpdateInboxView", { example: { name: "Waiting on the team" } }),
    ),
  },
  responses: { 200: jsonResponse("The updated view", inboxViewResponse) },
});

export const deleteInboxView = defineOperation({
  operationId: "deleteInboxView",
  tag: "Inbox",
  summary: "Delete an inbox view",
  description: `Permanent. Who may: as for updates. System views: 409 \`system_resource\`. ${visibilityNote}`,
  scope: "inbox:write",
  costUnits: costUnits.write,
  mcpTool: "inbox_views_delete",
  method: "delete",
  path: "/inbox/views/{inboxViewId}",
  resource: "/inbox/views/{inboxViewId}",
  errors: ["system_resource"],
  request: { params: inboxViewParams, body: jsonBody(emptyBodySchema, false) },
  responses: { 200: jsonResponse("The id of the deleted view", deletedSchema) },
});
