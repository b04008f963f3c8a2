import { z } from "@hono/zod-openapi";
import { idSchema, queryIdList } from "../ids";
import { costUnits, defineOperation, jsonBody, jsonResponse } from "../operation";
import { listResponse, pageQuery } from "../pagination";
import { fieldsInput, identityNote, recordSchema } from "./records";

/** Most items one batch carries (HubSpot's batch APIs take 100 as well). */
export const maxBatchRecords = 100;

const batchItem = z
  .object({
    id: idSchema("rec").optional().openapi({ description: "The record to change; required by `update`, refused otherwise." }),
    fields: fieldsInput,
  })
  .strict()
  .openapi("BatchRecordItem");

const batchBody = z
  .object({
    objectTypeId: idSchema("obj"),
    operation: z.enum(["create", "update", "upsert"]).openapi({
      description:
        "`create` makes a record of every item; `update` changes the record each item's `id` names; `upsert` updates the live record holding the item's `matchingField` value, or creates one.",
    }),
    matchingField: z.string().min(1).max(63).optional().openapi({
      description: "`upsert` only: the slug of a unique field of the type, which every item must set.",
      example: "email",
    }),
    records: z.array(batchItem).min(1).max(maxBatchRecords),
  })
  .strict()
  .superRefine((body, context) => {
    if ((body.operation === "upsert") !== (body.matchingField !== undefined))
      context.addIssue({
        code: "custom",
        path: ["matchingField"],
        message: body.operation === "upsert" ? "Required by upsert" : "Only upsert takes a matchingField",
      });
    for (const [index, item] of body.records.entries())
      if ((body.operation === "update") !== (item.id !== undefined))
        context.addIssue({
          code: "custom",
          path: ["records", index, "id"],
          message: body.operation === "update" ? "Required by update" : "Only update takes an id",
        });
  })
  .openapi("BatchRecords", {
    example: {
      objectTypeId: "obj_01jd5q0m4x8r2w3y6z7a9b",
      operation: "create",
      records: [{ fields: { name: "Ada Lovelace" } }, { fields: { name: "Charles Babbage" } }],
    },
  });

const itemError = z
  .object({
    code: z.string().max(64).openapi({ example: "identity_conflict" }),
    message: z.string().max(2_000),
    requestId: z.string().max(64),
    details: z.unknown().optional(),
  })
  .openapi({ description: "The `error` object this item would have been answered alone." });

const batchResult = z
  .object({
    index: z.number().int().min(0).max(99).openapi({ format: "int32", description: "Position of the item in `records`." }),
    status: z
      .number()
      .int()
      .min(200)
      .max(499)
      .openapi({ format: "int32", description: "201 created, 200 updated, or the 4xx the item would get alone." }),
    record: recordSchema.optional(),
    error: itemError.optional(),
  })
  .openapi("BatchRecordResult");

export const batchRecords = defineOperation({
  operationId: "batchRecords",
  tag: "Records",
  summary: "Create, update or upsert records in a batch",
  description: `1 to 100 records of one object type. Each item is validated and applied on its own: an invalid item fails alone, with the status and \`error\` it would get as a single request (paths name inputs as there: \`body.fields.<slug>\`, or \`fields.<slug>\` for the MCP tool), and the valid ones are written together, in one transaction, with one \`record.created\` or \`record.updated\` event each. Two items of the batch holding one unique value are a conflict too: the first wins. ${identityNote} A body that is not of the documented shape is refused whole (400). Retry with the same \`Idempotency-Key\` to get the first answer and no second event. Costs 0.4 per record written (\`X-Token-Cost\` the sum); one request in the rate-limit windows. Members and above.`,
  scope: "crm:records:write",
  costUnits: costUnits.write,
  costPer: { unit: "record written", atMost: 100 },
  mcpTool: "records_batch",
  mcpRequiresIdempotencyKey: true,
  method: "post",
  path: "/records/batch",
  request: { body: jsonBody(batchBody) },
  responses: {
    200: jsonResponse(
      "One result per item, in input order",
      z.object({ results: z.array(batchResult).max(maxBatchRecords) }).openapi("BatchRecordsResults"),
    ),
  },
});

const searchHit = z
  .object({
    record: recordSchema,
    objectTypeId: idSchema("obj"),
    matchedFields: z
      .array(z.string().max(63))
      .max(500)
      .openapi({ description: "Slugs of the fields whose values matched, best first.", example: ["name", "email"] }),
  })
  .openapi("RecordSearchHit");

export const searchRecords = defineOperation({
  operationId: "searchRecords",
  tag: "Records",
  summary: "Search records",
  description:
    "Finds a workspace's live records by what they hold: text, e-mail, phone, URL and domain values and the labels of select options, every word of `q` as a prefix (`ann` finds Anna; `acme.ex` finds the people of acme.example, its parts in that order). Best matches first: a record whose `name` holds more of the words of `q` before one that holds them in its other fields, then by id; writes of other records never change that order, so a walk through the pages serves each hit once. Any member of the workspace may search it.",
  scope: "crm:records:read",
  costUnits: costUnits.read,
  mcpTool: "records_search",
  method: "get",
  path: "/records/search",
  request: {
    query: z
      .object({
        workspaceId: idSchema("ws").openapi({ param: { name: "workspaceId", in: "query" } }),
        q: z
          .string()
          .trim()
          .min(1)
          .max(200)
          .openapi({ param: { name: "q", in: "query" }, description: "Words to find, 1 to 200 characters.", example: "ann" }),
        objectTypeIds: queryIdList("objectTypeIds", "obj", 20, "Only records of these object types").optional(),
        ...pageQuery,
      })
      .strict(),
  },
  responses: { 200: jsonResponse("A page of matching records, best first", listResponse(searchHit)) },
});
