import { z } from "@hono/zod-openapi";
import { deletedSchema, emptyBodySchema, idSchema, pathId } from "../ids";
import { costUnits, defineOperation, jsonBody, jsonResponse } from "../operation";
import { listResponse, pageQuery } from "../pagination";
import { inputs, recordViewSchema, viewConfigInputSchema } from "./crm-schemas";

const objectTypeParams = z.object({ objectTypeId: pathId("objectTypeId", "obj") });
const viewParams = z.object({ viewId: pathId("viewId", "view") });
const viewResponse = z.object({ view: recordViewSchema });

const viewFields = {
  name: inputs.name,
  emoji: inputs.shortText.optional(),
  type: z.enum(["table", "kanban"]).optional().openapi({
    description:
      "Optional: a view with `kanbanFieldDefinitionId` is a `kanban` view, one without it a `table`. When sent, it must agree with `kanbanFieldDefinitionId` (400 otherwise).",
  }),
  isDefault: z.boolean().optional(),
  kanbanFieldDefinitionId: idSchema("fld").optional(),
  kanbanWinOptionIds: z.array(idSchema("opt")).max(100).optional(),
  kanbanLossOptionIds: z.array(idSchema("opt")).max(100).optional(),
  config: viewConfigInputSchema.optional(),
};

const validationNote =
  "`config` is checked against the object type's fields: unknown field ids, operators that do not fit a field's type, kanban on a field that is not a select of this type, win/loss ids that are not its options or that overlap → 400. Managers, admins and owners.";

export const listViews = defineOperation({
  operationId: "listViews",
  tag: "CRM",
  summary: "List the saved views of an object type",
  description: "Saved views of the object type in their order, the default view among them.",
  scope: "crm:metadata:read",
  costUnits: costUnits.read,
  mcpTool: "crm_views_list",
  method: "get",
  path: "/crm/objects/{objectTypeId}/views",
  request: { params: objectTypeParams, query: z.object(pageQuery).strict() },
  responses: { 200: jsonResponse("A page of views, in their order", listResponse(recordViewSchema)) },
});

export const createView = defineOperation({
  operationId: "createView",
  tag: "CRM",
  summary: "Create a saved view",
  description: `One default view per object type: a new default view clears the former. ${validationNote}`,
  scope: "crm:metadata:write",
  costUnits: costUnits.write,
  mcpTool: "crm_views_create",
  method: "post",
  path: "/crm/objects/{objectTypeId}/views",
  request: {
    params: objectTypeParams,
    body: jsonBody(
      z
        .object(viewFields)
        .strict()
        .openapi("CreateRecordView", {
          example: { name: "Big deals" },
        }),
    ),
  },
  responses: { 201: jsonResponse("The created view", viewResponse) },
});

export const getView = defineOperation({
  operationId: "getView",
  tag: "CRM",
  summary: "Get a saved view",
  description: "A saved view with its configuration (columns, filter, sorts, grouping) and kanban settings.",
  scope: "crm:metadata:read",
  costUnits: costUnits.read,
  mcpTool: "crm_views_get",
  singleResource: true,
  method: "get",
  path: "/crm/views/{viewId}",
  request: { params: viewParams },
  responses: { 200: jsonResponse("The view", viewResponse) },
});

export const updateView = defineOperation({
  operationId: "updateView",
  tag: "CRM",
  summary: "Update a saved view",
  description: `Any of the creation fields; \`config\` replaces the whole configuration. The board follows \`kanbanFieldDefinitionId\` as on creation: a field id alone makes the view a kanban view on that field (win and loss ids are kept only while the field stays the same), \`null\` makes it a table; \`type: "table"\` alone drops the board's settings. ${validationNote}`,
  scope: "crm:metadata:write",
  costUnits: costUnits.write,
  mcpTool: "crm_views_update",
  method: "patch",
  path: "/crm/views/{viewId}",
  request: {
    params: viewParams,
    body: jsonBody(
      z
        .object({
          ...viewFields,
          name: inputs.name.optional(),
          emoji: inputs.shortText.nullable().optional(),
          kanbanFieldDefinitionId: idSchema("fld").nullable().optional(),
        })
        .strict()
        .openapi("UpdateRecordView", { example: { name: "Largest deals" } }),
    ),
  },
  responses: { 200: jsonResponse("The updated view", viewResponse) },
});

export const deleteView = defineOperation({
  operationId: "deleteView",
  tag: "CRM",
  summary: "Delete a saved view",
  description: "Permanent. Deleting the default view makes the first remaining view the default. Managers, admins and owners.",
  scope: "crm:metadata:write",
  costUnits: costUnits.write,
  mcpTool: "crm_views_delete",
  method: "delete",
  path: "/crm/views/{viewId}",
  request: { params: viewParams, body: jsonBody(emptyBodySchema, false) },
  responses: { 200: jsonResponse("The id of the deleted view", deletedSchema) },
});

export const reorderViews = defineOperation({
  operationId: "reorderViews",
  tag: "CRM",
  summary: "Reorder the saved views of an object type",
  description: "`viewIds` must be exactly the object type's views, each once, in the new order. Managers, admins and owners.",
  scope: "crm:metadata:write",
  costUnits: costUnits.write,
  mcpTool: "crm_views_reorder",
  // Setting the same order twice leaves the same order.
  mcpHints: { idempotentHint: true },
  method: "post",
  path: "/crm/objects/{objectTypeId}/views/reorder",
  request: {
    params: objectTypeParams,
    body: jsonBody(
      z
        .object({ viewIds: z.array(idSchema("view")).min(1).max(1000) })
        .strict()
        .openapi("ReorderRecordViews", { example: { viewIds: ["view_01jd5q0m4x8r2w3y6z7a9b", "view_01jd5q0m4x8r2w3y6z7a9c"] } }),
    ),
  },
  responses: { 200: jsonResponse("The new order", z.object({ viewIds: z.array(idSchema("view")).max(1000) })) },
});
