import { z } from "@hono/zod-openapi";
import { deletedSchema, emptyBodySchema, idSchema, pathId, timestampMs } from "../ids";
import { nullableRef } from "../nullable-ref";
import { costUnits, defineOperation, jsonBody, jsonResponse } from "../operation";
import { cursorSchema, listResponse, pageQuery } from "../pagination";
import { defaulted } from "../request-defaults";
import { outputText } from "../strings";
import { viewFilterSchema, viewSortSchema } from "./crm-schemas";

export const recordSchema = z
  .object({
    id: idSchema("rec"),
    workspaceId: idSchema("ws"),
    objectTypeId: idSchema("obj"),
    fields: z.record(z.string(), z.unknown()).openapi({
      description:
        "Every field of the object type by slug; null when unset. Text-like fields, dates (YYYY-MM-DD), selects (the option's value), users and single relations (a record id) are strings; numbers and timestamps (Unix ms) numbers; checkboxes booleans; multiselects and to-many relations lists.",
      example: { name: "Ada Lovelace", email: "ada@example.com", company: "rec_01jd5q0m4x8r2w3y6z7a9b" },
    }),
    createdBy: outputText(73).openapi({ description: "Id of the actor that created it" }),
    createdAt: timestampMs,
    updatedAt: timestampMs,
  })
  .openapi("Record");

const recordResponse = z.object({ record: recordSchema });
const recordParams = z.object({ recordId: pathId("recordId", "rec") });

/**
 * zod copies a record without a `__proto__` key (assigning it would replace the copy's prototype),
 * so the check against the object type's slugs would never see one: it is refused here, on the raw
 * input, like any other key that is not a field slug.
 */
export const fieldsInput = z
  .preprocess(
    (fields, context) => {
      if (fields !== null && typeof fields === "object" && Object.hasOwn(fields, "__proto__"))
        context.addIssue({ code: "custom", path: ["__proto__"], message: "Not a field of this object type" });
      return fields;
    },
    z.record(z.string(), z.unknown()).refine((fields) => Object.keys(fields).length > 0, "Give at least one field"),
  )
  .openapi({
    description: "Values keyed by field slug (GET /crm/objects/{objectTypeId}/fields lists them); at least one.",
    minProperties: 1,
  });

export const identityNote =
  "A value of a unique field (people `email`, companies `domain`, custom unique fields) equal to another live record's, after trimming and case-folding, is 409 `identity_conflict` with `details.matches = [{ recordId, field, value }]`; nothing is written.";

export const createRecord = defineOperation({
  operationId: "createRecord",
  tag: "Records",
  summary: "Create a record",
  description: `Validates every value by its field's type, applies defaults and requires every required field; unknown and read-only fields are 400 with a detail each. ${identityNote} Emits \`record.created\`; retry with the same \`Idempotency-Key\` to get the first answer and no second event. Members and above.`,
  scope: "crm:records:write",
  costUnits: costUnits.write,
  mcpTool: "records_create",
  mcpRequiresIdempotencyKey: true,
  method: "post",
  path: "/records",
  errors: ["identity_conflict"],
  request: {
    body: jsonBody(
      z
        .object({ objectTypeId: idSchema("obj"), fields: fieldsInput })
        .strict()
        .openapi("CreateRecord", {
          example: { objectTypeId: "obj_01jd5q0m4x8r2w3y6z7a9b", fields: { name: "Ada Lovelace" } },
        }),
    ),
  },
  responses: { 201: jsonResponse("The created record", recordResponse) },
});

export const getRecord = defineOperation({
  operationId: "getRecord",
  tag: "Records",
  summary: "Get a record",
  description: "A live record with every field of its object type.",
  scope: "crm:records:read",
  costUnits: costUnits.read,
  mcpTool: "records_get",
  singleResource: true,
  method: "get",
  path: "/records/{recordId}",
  request: { params: recordParams },
  responses: { 200: jsonResponse("The record", recordResponse) },
});

export const updateRecord = defineOperation({
  operationId: "updateRecord",
  tag: "Records",
  summary: "Update a record",
  description: `Changes the given fields only (null clears one that is not required), validated as on creation. ${identityNote} Emits \`record.updated\` with \`changedFields\`. Members and above.`,
  scope: "crm:records:write",
  costUnits: costUnits.write,
  mcpTool: "records_update",
  method: "patch",
  path: "/records/{recordId}",
  errors: ["identity_conflict"],
  request: {
    params: recordParams,
    body: jsonBody(
      z
        .object({ fields: fieldsInput })
        .strict()
        .openapi("UpdateRecord", { example: { fields: { job_title: "Analyst" } } }),
    ),
  },
  responses: { 200: jsonResponse("The updated record", recordResponse) },
});

export const deleteRecord = defineOperation({
  operationId: "deleteRecord",
  tag: "Records",
  summary: "Delete a record",
  description:
    "Soft delete: the record is gone from reads, lists and queries, and its unique values are free again. Emits `record.deleted`. Members and above.",
  scope: "crm:records:write",
  costUnits: costUnits.write,
  mcpTool: "records_delete",
  method: "delete",
  path: "/records/{recordId}",
  request: { params: recordParams, body: jsonBody(emptyBodySchema, false) },
  responses: { 200: jsonResponse("The id of the deleted record", deletedSchema) },
});

export const listRecords = defineOperation({
  operationId: "listRecords",
  tag: "Records",
  summary: "List records",
  description: "Records of an object type, oldest first; with `viewId`, filtered and sorted as the saved view says.",
  scope: "crm:records:read",
  costUnits: costUnits.read,
  mcpTool: "records_list",
  method: "get",
  path: "/records",
  request: {
    query: z
      .object({
        objectTypeId: idSchema("obj").openapi({ param: { name: "objectTypeId", in: "query" } }),
        viewId: idSchema("view")
          .optional()
          .openapi({ param: { name: "viewId", in: "query" } }),
        ...pageQuery,
      })
      .strict(),
  },
  responses: { 200: jsonResponse("A page of records", listResponse(recordSchema)) },
});

export const queryRecords = defineOperation({
  operationId: "queryRecords",
  tag: "Records",
  summary: "Query records",
  description:
    "Filter and sort with the saved-view language (`filter: { op, conditions: [{ fieldDefinitionId, operator, value? }] }`, `sorts: [{ fieldDefinitionId, direction }]`), keyset-paginated for any sort. Unset values sort first ascending, last descending; ties by record id.",
  scope: "crm:records:read",
  costUnits: costUnits.read,
  mcpTool: "records_query",
  // A POST only because the filter is a body: it reads and changes nothing.
  mcpHints: { readOnlyHint: true, idempotentHint: true },
  method: "post",
  path: "/records/query",
  request: {
    body: jsonBody(
      z
        .object({
          objectTypeId: idSchema("obj"),
          filter: nullableRef(viewFilterSchema).optional(),
          sorts: z.array(viewSortSchema).max(3).optional(),
          limit: defaulted(z.number().int().min(1).max(100).openapi({ format: "int32" }), 50, "Page size, 1 to 100."),
          cursor: cursorSchema.optional().openapi({ description: "`pagination.cursor` of the previous page." }),
        })
        .strict()
        .openapi("QueryRecords", {
          example: {
            objectTypeId: "obj_01jd5q0m4x8r2w3y6z7a9b",
          },
        }),
    ),
  },
  responses: { 200: jsonResponse("A page of matching records", listResponse(recordSchema)) },
});

export const assertRecord = defineOperation({
  operationId: "assertRecord",
  tag: "Records",
  summary: "Create or update a record by a unique field",
  description: `\`matchingField\` names a unique field of the type, which \`fields\` must set: the live record with that value (trimmed, case-folded) is updated (200), or a new record is created (201). ${identityNote}`,
  scope: "crm:records:write",
  costUnits: costUnits.write,
  mcpTool: "records_assert",
  method: "put",
  path: "/records",
  errors: ["identity_conflict"],
  request: {
    query: z
      .object({
        matchingField: z
          .string()
          .min(1)
          .max(63)
          .openapi({ param: { name: "matchingField", in: "query" }, example: "email" }),
      })
      .strict(),
    body: jsonBody(
      z
        .object({ objectTypeId: idSchema("obj"), fields: fieldsInput })
        .strict()
        .openapi("AssertRecord", {
          example: { objectTypeId: "obj_01jd5q0m4x8r2w3y6z7a9b", fields: { name: "Ada Lovelace", email: "ada@example.com" } },
        }),
    ),
  },
  responses: {
    200: jsonResponse("The matching record, updated", recordResponse),
    201: jsonResponse("No record matched: the created record", recordResponse),
  },
});
