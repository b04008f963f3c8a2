import { z } from "@hono/zod-openapi";
import { deletedSchema, emptyBodySchema, idSchema, pathId, timestampMs } from "../ids";
import { costUnits, defineOperation, jsonBody, jsonResponse } from "../operation";
import { listResponse, pageQuery } from "../pagination";
import { defaulted } from "../request-defaults";
import { outputText } from "../strings";
import { recipientAddress, sendingRules, sentResponse, subjectLine } from "./inbox-mail";
import { emailAddress } from "./inbox-schemas";

/**
 * Drafts of new conversations: a composed message kept before its conversation exists (a reply's
 * draft belongs to its conversation: `inbox-drafts.ts`). The MCP compose tool's `sendMode: "draft"`
 * saves one; `POST /inbox/drafts/{draftId}/send` sends it.
 */

export const composeDraftSchema = z
  .object({
    id: idSchema("drf"),
    workspaceId: idSchema("ws"),
    mailbox: emailAddress.openapi({ description: "The workspace mailbox it will be sent from" }),
    to: z.array(emailAddress).max(50),
    cc: z.array(emailAddress).max(50),
    subject: outputText(998).nullable(),
    text: outputText(100_000).nullable(),
    html: outputText(100_000).nullable().openapi({ description: "Sanitized HTML" }),
    createdAt: timestampMs,
    updatedAt: timestampMs,
  })
  .openapi("ComposeDraft");

export type ComposeDraft = z.infer<typeof composeDraftSchema>;

const draftResponse = z.object({ draft: composeDraftSchema });
const draftParams = z.object({ draftId: pathId("draftId", "drf") });

const addresses = (description: string) =>
  z
    .array(recipientAddress)
    .max(50)
    .openapi({ description: `${description}; at most 50` });

const content = {
  text: z.string().max(100_000).openapi({ description: "Plain-text body; derived from `html` when sent without one" }),
  html: z.string().max(100_000).openapi({ description: "HTML body, stored sanitized; markup the sanitizer refuses is 400" }),
};

const accessNote =
  "Only the draft's author sees it: another user's draft, like an unknown id, is 404. Writing or sending one needs what composing needs: members and above whose inbox access is `all`.";

export const createComposeDraft = defineOperation({
  operationId: "createComposeDraft",
  tag: "Inbox",
  summary: "Save a draft of a new conversation",
  description: `The fields of compose (\`POST /inbox/conversations\`), checked the same way (the mailbox is one of the workspace's), but any may still be missing except the workspace and the mailbox: they are required when the draft is sent. ${accessNote}`,
  scope: "inbox:write",
  costUnits: costUnits.write,
  mcpTool: "inbox_compose_drafts_create",
  method: "post",
  path: "/inbox/drafts",
  request: {
    body: jsonBody(
      z
        .object({
          workspaceId: idSchema("ws"),
          mailbox: recipientAddress.openapi({ description: "One of the workspace's mailbox addresses: the sender" }),
          to: defaulted(addresses("Recipients"), [], "Recipients; at most 50."),
          cc: defaulted(addresses("Copy recipients"), [], "Copy recipients; at most 50."),
          subject: subjectLine.optional(),
          text: content.text.optional(),
          html: content.html.optional(),
        })
        .strict()
        .openapi("CreateComposeDraft", {
          example: { workspaceId: "ws_01jd5q0m4x8r2w3y6z7a9b", mailbox: "support@acme.example" },
        }),
    ),
  },
  responses: { 201: jsonResponse("The saved draft", draftResponse) },
});

export const listComposeDrafts = defineOperation({
  operationId: "listComposeDrafts",
  tag: "Inbox",
  summary: "List your drafts of new conversations in a workspace",
  description: `The caller's own drafts, oldest first by \`(createdAt, id)\`. ${accessNote}`,
  scope: "inbox:read",
  costUnits: costUnits.read,
  mcpTool: "inbox_compose_drafts_list",
  method: "get",
  path: "/inbox/drafts",
  request: {
    query: z
      .object({
        workspaceId: idSchema("ws").openapi({ param: { name: "workspaceId", in: "query" } }),
        ...pageQuery,
      })
      .strict(),
  },
  responses: { 200: jsonResponse("A page of drafts", listResponse(composeDraftSchema)) },
});

export const getComposeDraft = defineOperation({
  operationId: "getComposeDraft",
  tag: "Inbox",
  summary: "Get a draft of a new conversation",
  description: accessNote,
  scope: "inbox:read",
  costUnits: costUnits.read,
  mcpTool: "inbox_compose_drafts_get",
  singleResource: true,
  method: "get",
  path: "/inbox/drafts/{draftId}",
  request: { params: draftParams },
  responses: { 200: jsonResponse("The draft", draftResponse) },
});

export const updateComposeDraft = defineOperation({
  operationId: "updateComposeDraft",
  tag: "Inbox",
  summary: "Change a draft of a new conversation",
  description: `Each property given replaces the draft's; \`subject\`, \`text\` and \`html\` are cleared with null. The workspace stays. A draft being sent cannot change (409 \`conflict\`). ${accessNote}`,
  scope: "inbox:write",
  costUnits: costUnits.write,
  mcpTool: "inbox_compose_drafts_update",
  method: "patch",
  path: "/inbox/drafts/{draftId}",
  request: {
    params: draftParams,
    body: jsonBody(
      z
        .object({
          mailbox: recipientAddress.optional().openapi({ description: "One of the workspace's mailbox addresses" }),
          to: addresses("Recipients").optional(),
          cc: addresses("Copy recipients").optional(),
          subject: subjectLine.nullable().optional(),
          text: content.text.nullable().optional(),
          html: content.html.nullable().optional(),
        })
        .strict()
        .openapi("UpdateComposeDraft", { example: { subject: "Your renewal, with the new prices" } }),
    ),
  },
  responses: { 200: jsonResponse("The draft after the change", draftResponse) },
  errors: ["conflict"],
});

export const deleteComposeDraft = defineOperation({
  operationId: "deleteComposeDraft",
  tag: "Inbox",
  summary: "Discard a draft of a new conversation",
  description: `A draft being sent cannot be discarded (409 \`conflict\`). ${accessNote}`,
  scope: "inbox:write",
  costUnits: costUnits.write,
  mcpTool: "inbox_compose_drafts_delete",
  method: "delete",
  path: "/inbox/drafts/{draftId}",
  request: { params: draftParams, body: jsonBody(emptyBodySchema, false) },
  responses: { 200: jsonResponse("The id of the discarded draft", deletedSchema) },
  errors: ["conflict"],
});

export const sendComposeDraft = defineOperation({
  operationId: "sendComposeDraft",
  tag: "Inbox",
  summary: "Send a draft: start its conversation",
  description: `Sends the draft as it is saved, as compose does, and deletes it in the same D1 batch that creates the conversation and its message. It needs recipients, a subject and a text or HTML body (400 naming what is missing). A draft is sent once: while a send of it is under way, another is 409 \`conflict\`, and once sent the draft is gone (404). ${sendingRules}.`,
  scope: "inbox:send",
  costUnits: costUnits.write,
  mcpTool: "inbox_compose_drafts_send",
  mcpHints: { destructiveHint: true, openWorldHint: true },
  // Sending a saved draft follows the sendMode rule as compose does (DESIGN.md section 11): omitted,
  // the preview is the draft as it would leave; `draft` leaves it as it is.
  mcpSendMode: { draftTool: "inbox_compose_drafts_get" },
  method: "post",
  path: "/inbox/drafts/{draftId}/send",
  request: { params: draftParams, body: jsonBody(emptyBodySchema, false) },
  responses: { 201: jsonResponse("The new conversation and the sent message", sentResponse) },
  errors: ["recipient_unsubscribed", "conflict"],
});
