import { z } from "@hono/zod-openapi";
import { deletedSchema, emptyBodySchema, idSchema, pathId, timestampMs } from "../ids";
import { costUnits, defineOperation, jsonBody, jsonResponse } from "../operation";
import { listResponse, pageQuery } from "../pagination";
import { label, outputText } from "../strings";

export const noteSchema = z
  .object({
    id: idSchema("note"),
    workspaceId: idSchema("ws"),
    recordId: idSchema("rec"),
    title: outputText(),
    contentHtml: outputText(100_000).openapi({ description: "Sanitized HTML" }),
    contentPlain: outputText(100_000),
    createdBy: outputText(73).openapi({ description: "Id of the actor that created it" }),
    meetingId: idSchema("mtg").optional(),
    createdAt: timestampMs,
    updatedAt: timestampMs,
  })
  .openapi("Note");

const noteResponse = z.object({ note: noteSchema });
const recordParams = z.object({ recordId: pathId("recordId", "rec") });
const noteParams = z.object({ noteId: pathId("noteId", "note") });
const content = z.string().max(100_000);
const htmlNote = "`contentHtml` is sanitized like task descriptions; `contentPlain` is derived from it when not given.";

export const createNote = defineOperation({
  operationId: "createNote",
  tag: "Notes",
  summary: "Create a note on a record",
  description: `${htmlNote} Members and above.`,
  scope: "notes:write",
  costUnits: costUnits.write,
  mcpTool: "notes_create",
  method: "post",
  path: "/records/{recordId}/notes",
  request: {
    params: recordParams,
    body: jsonBody(
      z
        .object({ title: label(), contentHtml: content.optional(), contentPlain: content.optional() })
        .strict()
        .openapi("CreateNote", { example: { title: "Call summary" } }),
    ),
  },
  responses: { 201: jsonResponse("The created note", noteResponse) },
});

export const listNotes = defineOperation({
  operationId: "listNotes",
  tag: "Notes",
  summary: "List the notes of a record",
  description: "Oldest first; deleted notes never appear.",
  scope: "notes:read",
  costUnits: costUnits.read,
  mcpTool: "notes_list",
  method: "get",
  path: "/records/{recordId}/notes",
  request: { params: recordParams, query: z.object(pageQuery).strict() },
  responses: { 200: jsonResponse("A page of notes", listResponse(noteSchema)) },
});

export const getNote = defineOperation({
  operationId: "getNote",
  tag: "Notes",
  summary: "Get a note",
  description: "A note that is not deleted, with its HTML and plain-text content.",
  scope: "notes:read",
  costUnits: costUnits.read,
  mcpTool: "notes_get",
  singleResource: true,
  method: "get",
  path: "/notes/{noteId}",
  request: { params: noteParams },
  responses: { 200: jsonResponse("The note", noteResponse) },
});

export const updateNote = defineOperation({
  operationId: "updateNote",
  tag: "Notes",
  summary: "Update a note",
  description: `${htmlNote} Members and above.`,
  scope: "notes:write",
  costUnits: costUnits.write,
  mcpTool: "notes_update",
  method: "patch",
  path: "/notes/{noteId}",
  request: {
    params: noteParams,
    body: jsonBody(
      z
        .object({
          title: label().optional(),
          contentHtml: content.optional(),
          contentPlain: content.optional(),
        })
        .strict()
        .openapi("UpdateNote", { example: { title: "Call summary (edited)" } }),
    ),
  },
  responses: { 200: jsonResponse("The updated note", noteResponse) },
});

export const deleteNote = defineOperation({
  operationId: "deleteNote",
  tag: "Notes",
  summary: "Delete a note",
  description: "Soft delete: gone from every list and read. Members and above.",
  scope: "notes:write",
  costUnits: costUnits.write,
  mcpTool: "notes_delete",
  method: "delete",
  path: "/notes/{noteId}",
  request: { params: noteParams, body: jsonBody(emptyBodySchema, false) },
  responses: { 200: jsonResponse("The id of the deleted note", deletedSchema) },
});
