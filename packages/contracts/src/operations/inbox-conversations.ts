import { z } from "@hono/zod-openapi";
import { idSchema, pathId, queryIdList } from "../ids";
import { costUnits, defineOperation, jsonBody, jsonResponse } from "../operation";
import { listResponse, pageQuery } from "../pagination";
import { conversationSchema, messageSchema } from "./inbox-schemas";

/** Conversations and their messages (DESIGN.md section 8; reference rule 8). */

const conversationResponse = z.object({ conversation: conversationSchema });
const conversationParams = z.object({ conversationId: pathId("conversationId", "conv") });

/**
 * A boolean in the query, spelled `true` or `false` and nothing else: typed boolean in the document,
 * as generated clients and MCP tools take it, read from the text the query carries.
 */
const queryBoolean = (name: string, description: string) =>
  z
    .preprocess(
      (value) => (value === "true" ? true : value === "false" ? false : value),
      z.boolean({ error: 'Expected "true" or "false"' }),
    )
    .optional()
    .openapi({ param: { name, in: "query" }, description });

const accessNote =
  "Members whose inbox access is `record_read` or `record_reply` see only conversations linked to a record; the others are 404 to them and absent from lists.";

/** How a walk through a conversation list sees conversations that move (a new message) while it pages. */
const walkNote =
  "A walk through the pages keeps the order it began with: the cursor carries the time of the first page, so a conversation that gets a message while you page is served once, at its place as of that time (never skipped), and conversations started meanwhile are not part of the walk; start again without `cursor` to see them and the new order.";

export const listConversations = defineOperation({
  operationId: "listConversations",
  tag: "Inbox",
  summary: "List or search the conversations of a workspace",
  description: `Newest first, by \`(lastMessageAtMs desc, id desc)\`: when the latest message arrived or was sent here. ${walkNote} \`q\` searches subjects, message texts, attendee names and addresses and the conversation's comments (every word, as a prefix); \`tagIds\` keeps conversations with any of the tags; \`viewId\` applies an inbox view's filter, and the other parameters narrow it further. ${accessNote}`,
  scope: "inbox:read",
  costUnits: costUnits.read,
  mcpTool: "inbox_conversations_list",
  method: "get",
  path: "/inbox/conversations",
  request: {
    query: z
      .object({
        workspaceId: idSchema("ws").openapi({ param: { name: "workspaceId", in: "query" } }),
        viewId: idSchema("ivw")
          .optional()
          .openapi({ param: { name: "viewId", in: "query" }, description: "An inbox view the caller may see" }),
        hasLinkedRecords: queryBoolean(
          "hasLinkedRecords",
          "Only conversations linked (`true`) or not linked (`false`) to a record",
        ),
        q: z
          .string()
          .min(1)
          .max(200)
          .optional()
          .openapi({ param: { name: "q", in: "query" }, description: "Words to search for, up to 200 characters" }),
        isClosed: queryBoolean("isClosed", "Only closed (`true`) or open (`false`) conversations"),
        assigneeUserId: idSchema("usr")
          .optional()
          .openapi({ param: { name: "assigneeUserId", in: "query" }, description: "Only conversations assigned to this user" }),
        tagIds: queryIdList("tagIds", "tag", 50, "Only conversations with any of these tags").optional(),
        ...pageQuery,
      })
      .strict(),
  },
  responses: { 200: jsonResponse("A page of conversations", listResponse(conversationSchema)) },
});

export const getConversation = defineOperation({
  operationId: "getConversation",
  tag: "Inbox",
  summary: "Get a conversation",
  description: `A conversation with its attendees, assignees and linked records. ${accessNote}`,
  scope: "inbox:read",
  costUnits: costUnits.read,
  mcpTool: "inbox_conversations_get",
  singleResource: true,
  method: "get",
  path: "/inbox/conversations/{conversationId}",
  request: { params: conversationParams },
  responses: { 200: jsonResponse("The conversation", conversationResponse) },
});

export const updateConversation = defineOperation({
  operationId: "updateConversation",
  tag: "Inbox",
  summary: "Close or reopen a conversation, assign it, link records",
  description: `\`assigneeUserIds\` replaces the assignees (members of the workspace). \`linkedRecordIds\` replaces the records linked by hand (live records of the workspace); records linked because an attendee matched them stay. \`tagIds\` replaces the tags (tags of the workspace). Members and above. ${accessNote}`,
  scope: "inbox:write",
  costUnits: costUnits.write,
  mcpTool: "inbox_conversations_update",
  method: "patch",
  path: "/inbox/conversations/{conversationId}",
  request: {
    params: conversationParams,
    body: jsonBody(
      z
        .object({
          isClosed: z.boolean().optional(),
          assigneeUserIds: z.array(idSchema("usr")).max(50).optional(),
          linkedRecordIds: z.array(idSchema("rec")).max(50).optional(),
          tagIds: z.array(idSchema("tag")).max(50).optional(),
        })
        .strict()
        .openapi("UpdateConversation", { example: { isClosed: true } }),
    ),
  },
  responses: { 200: jsonResponse("The conversation after the change", conversationResponse) },
});

export const listRecordConversations = defineOperation({
  operationId: "listRecordConversations",
  tag: "Inbox",
  summary: "List the conversations linked to a record",
  description: `Newest first, by \`(lastMessageAtMs desc, id desc)\`: when the latest message arrived or was sent here. ${walkNote} Links made by hand and by attendee matching.`,
  scope: "inbox:read",
  costUnits: costUnits.read,
  mcpTool: "inbox_conversations_list_for_record",
  method: "get",
  path: "/records/{recordId}/conversations",
  request: {
    params: z.object({ recordId: pathId("recordId", "rec") }),
    query: z.object({ ...pageQuery }).strict(),
  },
  responses: { 200: jsonResponse("A page of conversations", listResponse(conversationSchema)) },
});

export const listConversationMessages = defineOperation({
  operationId: "listConversationMessages",
  tag: "Inbox",
  summary: "List the messages of a conversation",
  description: `Oldest first, by \`(createdAt, id)\`: when each message arrived or was sent here, never its \`Date\` header (kept as \`sentAtMs\`); HTML is sanitized, attachments are listed by metadata. ${accessNote}`,
  scope: "inbox:read",
  costUnits: costUnits.read,
  mcpTool: "inbox_messages_list",
  method: "get",
  path: "/inbox/conversations/{conversationId}/messages",
  request: { params: conversationParams, query: z.object({ ...pageQuery }).strict() },
  responses: { 200: jsonResponse("A page of messages", listResponse(messageSchema)) },
});
