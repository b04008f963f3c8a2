import { z } from "@hono/zod-openapi";
import { deletedSchema, emptyBodySchema, idSchema, pathId } from "../ids";
import { costUnits, defineOperation, jsonBody, jsonResponse } from "../operation";
import { listResponse, pageQuery } from "../pagination";
import { label } from "../strings";
import { fieldOptionSchema, fieldSchema, fieldTypes, inputs } from "./crm-schemas";

const objectTypeParams = z.object({ objectTypeId: pathId("objectTypeId", "obj") });
const fieldParams = z.object({ fieldDefinitionId: pathId("fieldDefinitionId", "fld") });
const fieldResponse = z.object({ field: fieldSchema });
const optionResponse = z.object({ option: fieldOptionSchema });

const optionInput = z
  .object({
    value: label(),
    label: inputs.name.optional().openapi({ description: "Defaults to `value`" }),
    color: inputs.color.optional(),
    isDefault: z.boolean().optional(),
  })
  .strict();

export const listFields = defineOperation({
  operationId: "listFields",
  tag: "CRM",
  summary: "List the fields of an object type",
  description: "Field definitions in their order, with the options of select and multiselect fields.",
  scope: "crm:metadata:read",
  costUnits: costUnits.read,
  mcpTool: "crm_fields_list",
  method: "get",
  path: "/crm/objects/{objectTypeId}/fields",
  request: { params: objectTypeParams, query: z.object(pageQuery).strict() },
  responses: { 200: jsonResponse("A page of fields", listResponse(fieldSchema)) },
});

export const createField = defineOperation({
  operationId: "createField",
  tag: "CRM",
  summary: "Create a field",
  description:
    "Any field type; `options` for select and multiselect (at most one default for select), `relationObjectTypeId` (an object type of the same workspace) and `isMultiple` for relations. `defaultValue` is validated against the type. The slug (derived from the name when absent) is unique in the object type. Admins and owners only.",
  scope: "crm:metadata:write",
  costUnits: costUnits.write,
  mcpTool: "crm_fields_create",
  method: "post",
  path: "/crm/objects/{objectTypeId}/fields",
  resource: "/crm/fields/{fieldDefinitionId}",
  request: {
    params: objectTypeParams,
    body: jsonBody(
      z
        .object({
          name: inputs.name,
          slug: inputs.slug.optional(),
          type: z.enum(fieldTypes),
          isRequired: z.boolean().optional(),
          isUnique: z.boolean().optional(),
          defaultValue: z.unknown().optional(),
          isMultiple: z.boolean().optional(),
          relationObjectTypeId: idSchema("obj").optional(),
          options: z.array(optionInput).max(500).optional(),
        })
        .strict()
        .openapi("CreateField", {
          example: {
            name: "Tier",
            type: "text",
          },
        }),
    ),
  },
  responses: { 201: jsonResponse("The created field", fieldResponse) },
});

export const updateField = defineOperation({
  operationId: "updateField",
  tag: "CRM",
  summary: "Update a field",
  description:
    "Name, `isRequired`, `isUnique` and `defaultValue` (validated against the type). The type and slug never change. A system field's name may change; its other settings are 409 `system_resource`. Admins and owners only.",
  scope: "crm:metadata:write",
  costUnits: costUnits.write,
  mcpTool: "crm_fields_update",
  method: "patch",
  path: "/crm/fields/{fieldDefinitionId}",
  resource: "/crm/fields/{fieldDefinitionId}",
  errors: ["system_resource"],
  request: {
    params: fieldParams,
    body: jsonBody(
      z
        .object({
          name: inputs.name.optional(),
          isRequired: z.boolean().optional(),
          isUnique: z.boolean().optional(),
          defaultValue: z.unknown().optional(),
        })
        .strict()
        .openapi("UpdateField", { example: { name: "Customer tier" } }),
    ),
  },
  responses: { 200: jsonResponse("The updated field", fieldResponse) },
});

export const deleteField = defineOperation({
  operationId: "deleteField",
  tag: "CRM",
  summary: "Delete a custom field",
  description:
    "Permanently removes a custom field with its options, stored values and relations, and every mention of it in saved views (columns, filter conditions, sorts, groupBy, kanban field and win/loss options). System fields: 409 `system_resource`. Admins and owners only.",
  scope: "crm:metadata:write",
  costUnits: costUnits.write,
  mcpTool: "crm_fields_delete",
  method: "delete",
  path: "/crm/fields/{fieldDefinitionId}",
  resource: "/crm/fields/{fieldDefinitionId}",
  errors: ["system_resource"],
  request: { params: fieldParams, body: jsonBody(emptyBodySchema, false) },
  responses: { 200: jsonResponse("The id of the deleted field", deletedSchema) },
});

export const reorderFields = defineOperation({
  operationId: "reorderFields",
  tag: "CRM",
  summary: "Reorder the fields of an object type",
  description:
    "`fieldDefinitionIds` must be exactly the object type's fields, each once, in the new order. Admins and owners only.",
  scope: "crm:metadata:write",
  costUnits: costUnits.write,
  mcpTool: "crm_fields_reorder",
  // Setting the same order twice leaves the same order.
  mcpHints: { idempotentHint: true },
  method: "post",
  path: "/crm/objects/{objectTypeId}/fields/reorder",
  request: {
    params: objectTypeParams,
    body: jsonBody(
      z
        .object({ fieldDefinitionIds: z.array(idSchema("fld")).min(1).max(1000) })
        .strict()
        .openapi("ReorderFields", {
          example: { fieldDefinitionIds: ["fld_01jd5q0m4x8r2w3y6z7a9b", "fld_01jd5q0m4x8r2w3y6z7a9c"] },
        }),
    ),
  },
  responses: { 200: jsonResponse("The new order", z.object({ fieldDefinitionIds: z.array(idSchema("fld")).max(1000) })) },
});

export const createFieldOption = defineOperation({
  operationId: "createFieldOption",
  tag: "CRM",
  summary: "Add an option to a select field",
  description:
    "Select and multiselect fields only; `value` unique in the field. Making it the default clears the former default. Admins and owners only.",
  scope: "crm:metadata:write",
  costUnits: costUnits.write,
  mcpTool: "crm_field_options_create",
  method: "post",
  path: "/crm/fields/{fieldDefinitionId}/options",
  resource: "/crm/fields/{fieldDefinitionId}/options/{fieldOptionId}",
  request: {
    params: fieldParams,
    body: jsonBody(optionInput.openapi("CreateFieldOption", { example: { value: "bronze" } })),
  },
  responses: { 201: jsonResponse("The created option", optionResponse) },
});

export const updateFieldOption = defineOperation({
  operationId: "updateFieldOption",
  tag: "CRM",
  summary: "Update an option of a select field",
  description:
    "`value`, `label`, `color`, `isDefault` and `isActive` (an inactive option stays on existing records but cannot be chosen again). One default at most: making one the default clears the former. Admins and owners only.",
  scope: "crm:metadata:write",
  costUnits: costUnits.write,
  mcpTool: "crm_field_options_update",
  method: "patch",
  path: "/crm/fields/{fieldDefinitionId}/options/{fieldOptionId}",
  resource: "/crm/fields/{fieldDefinitionId}/options/{fieldOptionId}",
  request: {
    params: fieldParams.extend({ fieldOptionId: pathId("fieldOptionId", "opt") }),
    body: jsonBody(
      z
        .object({
          value: label().optional(),
          label: inputs.name.optional(),
          color: inputs.color.optional(),
          isDefault: z.boolean().optional(),
          isActive: z.boolean().optional(),
        })
        .strict()
        .openapi("UpdateFieldOption", { example: { label: "Gold customer" } }),
    ),
  },
  responses: { 200: jsonResponse("The updated option", optionResponse) },
});
