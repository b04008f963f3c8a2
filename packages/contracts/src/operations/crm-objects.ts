import { z } from "@hono/zod-openapi";
import { deletedSchema, emptyBodySchema, idSchema, pathId } from "../ids";
import { costUnits, defineOperation, jsonBody, jsonResponse } from "../operation";
import { inputs, objectTypeSchema } from "./crm-schemas";

const objectTypeParams = z.object({ objectTypeId: pathId("objectTypeId", "obj") });
const objectResponse = z.object({ object: objectTypeSchema });

export const listObjectTypes = defineOperation({
  operationId: "listObjectTypes",
  tag: "CRM",
  summary: "List object types",
  description: "The object types of a workspace (system: people, companies, deals; and custom ones), in their order.",
  scope: "crm:metadata:read",
  costUnits: costUnits.read,
  mcpTool: "crm_objects_list",
  method: "get",
  path: "/crm/objects",
  request: {
    query: z.object({ workspaceId: idSchema("ws").openapi({ param: { name: "workspaceId", in: "query" } }) }).strict(),
  },
  responses: { 200: jsonResponse("The workspace's object types", z.object({ objects: z.array(objectTypeSchema).max(1000) })) },
});

export const createObjectType = defineOperation({
  operationId: "createObjectType",
  tag: "CRM",
  summary: "Create a custom object type",
  description:
    "Creates a custom object type with a required `name` text field and a default table view. The slug (derived from `namePlural` when absent) is unique in the workspace: a duplicate is 409 `conflict`. Admins and owners only.",
  scope: "crm:metadata:write",
  costUnits: costUnits.write,
  mcpTool: "crm_objects_create",
  method: "post",
  path: "/crm/objects",
  resource: "/crm/objects/{objectTypeId}",
  request: {
    body: jsonBody(
      z
        .object({
          workspaceId: idSchema("ws"),
          nameSingular: inputs.name,
          namePlural: inputs.name,
          slug: inputs.slug.optional(),
          icon: inputs.shortText.optional(),
          color: inputs.color.optional(),
        })
        .strict()
        .openapi("CreateObjectType", {
          example: {
            workspaceId: "ws_01jd5q0m4x8r2w3y6z7a9b",
            nameSingular: "Vendor",
            namePlural: "Vendors",
          },
        }),
    ),
  },
  responses: { 201: jsonResponse("The created object type", objectResponse) },
});

export const updateObjectType = defineOperation({
  operationId: "updateObjectType",
  tag: "CRM",
  summary: "Update an object type",
  description:
    "Names, icon, color and `isActive`. A system object type cannot be deactivated (409 `system_resource`). Admins and owners only.",
  scope: "crm:metadata:write",
  costUnits: costUnits.write,
  mcpTool: "crm_objects_update",
  method: "patch",
  path: "/crm/objects/{objectTypeId}",
  resource: "/crm/objects/{objectTypeId}",
  errors: ["system_resource"],
  request: {
    params: objectTypeParams,
    body: jsonBody(
      z
        .object({
          nameSingular: inputs.name.optional(),
          namePlural: inputs.name.optional(),
          icon: inputs.shortText.nullable().optional(),
          color: inputs.color.nullable().optional(),
          isActive: z.boolean().optional(),
        })
        .strict()
        .openapi("UpdateObjectType", { example: { namePlural: "Suppliers" } }),
    ),
  },
  responses: { 200: jsonResponse("The updated object type", objectResponse) },
});

export const deleteObjectType = defineOperation({
  operationId: "deleteObjectType",
  tag: "CRM",
  summary: "Delete a custom object type",
  description:
    "Permanently removes a custom object type with its fields, options, records, stored values, relations pointing at its records, and saved views. System types: 409 `system_resource`. Admins and owners only.",
  scope: "crm:metadata:write",
  costUnits: costUnits.write,
  mcpTool: "crm_objects_delete",
  method: "delete",
  path: "/crm/objects/{objectTypeId}",
  resource: "/crm/objects/{objectTypeId}",
  errors: ["system_resource"],
  request: { params: objectTypeParams, body: jsonBody(emptyBodySchema, false) },
  responses: { 200: jsonResponse("The id of the deleted object type", deletedSchema) },
});
