import { z } from "@hono/zod-openapi";
import { deletedSchema, emptyBodySchema, pathId } from "../ids";
import { costUnits, defineOperation, jsonBody, jsonResponse } from "../operation";
import { defaulted } from "../request-defaults";
import { textOrHtml } from "./inbox-mail";
import { draftSchema } from "./inbox-schemas";

/** The caller's own draft of a reply to a conversation (reference rule 9; DESIGN.md section 8). */

const conversationParams = z.object({ conversationId: pathId("conversationId", "conv") });
const draftResponse = z.object({ draft: draftSchema });

/** A recipient: one address, checked, so that a line break can never reach a header later. */
const recipient = z.email().max(254).openapi({ example: "ada@example.com" });

const accessNote =
  "One draft per user and conversation, on conversations the caller may see (members whose inbox access is `record_read` or `record_reply` only on conversations linked to a record; others are 404).";

export const putConversationDraft = defineOperation({
  operationId: "putConversationDraft",
  tag: "Inbox",
  summary: "Save the caller's draft of a conversation",
  description: `Creates or replaces the draft. \`html\` is accepted for e-mail conversations only (400 otherwise) and stored sanitized; markup the sanitizer refuses is 400. Members and above. ${accessNote}`,
  scope: "inbox:write",
  costUnits: costUnits.write,
  mcpTool: "inbox_drafts_save",
  method: "put",
  path: "/inbox/conversations/{conversationId}/draft",
  request: {
    params: conversationParams,
    body: jsonBody(
      z
        .object({
          text: z.string().max(100_000).optional().openapi({ description: "Plain-text body; derived from `html` when absent" }),
          html: z.string().max(100_000).optional(),
          to: defaulted(z.array(recipient).max(100), [], "Recipients."),
          cc: defaulted(z.array(recipient).max(100), [], "Copy recipients."),
        })
        .strict()
        .refine(textOrHtml.check, textOrHtml.refusal)
        .openapi("PutConversationDraft", {
          ...textOrHtml.documented,
          example: { text: "Thanks, we will get back to you today." },
        }),
    ),
  },
  responses: { 200: jsonResponse("The saved draft", draftResponse) },
});

export const getConversationDraft = defineOperation({
  operationId: "getConversationDraft",
  tag: "Inbox",
  summary: "Get the caller's draft of a conversation",
  description: `404 when the caller has no draft there. ${accessNote}`,
  scope: "inbox:read",
  costUnits: costUnits.read,
  mcpTool: "inbox_drafts_get",
  singleResource: true,
  method: "get",
  path: "/inbox/conversations/{conversationId}/draft",
  request: { params: conversationParams },
  responses: { 200: jsonResponse("The draft", draftResponse) },
});

export const deleteConversationDraft = defineOperation({
  operationId: "deleteConversationDraft",
  tag: "Inbox",
  summary: "Discard the caller's draft of a conversation",
  description: `Answers with the conversation's id; 404 when the caller has no draft there. Members and above. ${accessNote}`,
  scope: "inbox:write",
  costUnits: costUnits.write,
  mcpTool: "inbox_drafts_delete",
  method: "delete",
  path: "/inbox/conversations/{conversationId}/draft",
  request: { params: conversationParams, body: jsonBody(emptyBodySchema, false) },
  responses: { 200: jsonResponse("The id of the conversation whose draft was discarded", deletedSchema) },
});
