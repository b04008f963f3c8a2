import { z } from "@hono/zod-openapi";
import { deletedSchema, emptyBodySchema, idSchema, pathId, timestampMs } from "../ids";
import { costUnits, defineOperation, jsonBody, jsonResponse } from "../operation";
import { listResponse, pageQuery } from "../pagination";
import { label, outputText } from "../strings";
import { textOrHtml } from "./inbox-mail";

/** Comments on conversations and workspace tags (DESIGN.md section 14, inbox collaboration). */

export const commentSchema = z
  .object({
    id: idSchema("cmt"),
    conversationId: idSchema("conv"),
    workspaceId: idSchema("ws"),
    authorId: outputText(73).openapi({ description: "Id of the member or agent who wrote it" }),
    html: outputText(100_000).openapi({ description: "Sanitized HTML" }),
    text: outputText(100_000),
    mentionUserIds: z.array(idSchema("usr")).max(50).openapi({ description: "Members of the workspace the comment names" }),
    createdAt: timestampMs,
    updatedAt: timestampMs,
  })
  .openapi("Comment");

export const tagSchema = z
  .object({
    id: idSchema("tag"),
    workspaceId: idSchema("ws"),
    name: outputText(64),
    color: outputText(7).openapi({ description: "`#rrggbb`, lower case", example: "#22c55e" }),
    createdAt: timestampMs,
    updatedAt: timestampMs,
  })
  .openapi("Tag");

const conversationParams = z.object({ conversationId: pathId("conversationId", "conv") });
const commentParams = z.object({ commentId: pathId("commentId", "cmt") });
const tagParams = z.object({ tagId: pathId("tagId", "tag") });
const commentResponse = z.object({ comment: commentSchema });
const tagResponse = z.object({ tag: tagSchema });

const content = z.string().min(1).max(100_000);
const mentionUserIds = z.array(idSchema("usr")).max(50).optional().openapi({
  description:
    "People to mention: each must be able to see the conversation (members with the inbox access it needs, the organization's admins and owners); 400 naming the id otherwise.",
});
const commentFields = z.object({ text: content.optional(), html: content.optional(), mentionUserIds }).strict();
const commentExample = { example: { text: "Looping in finance: @Bob can you check the invoice?" } };

const commentNote =
  "Comments are internal: never mailed, never shown to the customer, visible to whoever may see the conversation, and found by `q` on the conversation list. `html` is sanitized as note contents are; `text` is derived from it when not given.";

export const listComments = defineOperation({
  operationId: "listComments",
  tag: "Inbox",
  summary: "List the comments on a conversation",
  description: `Oldest first, by \`(createdAt, id)\`. ${commentNote}`,
  scope: "inbox:read",
  costUnits: costUnits.read,
  mcpTool: "inbox_comments_list",
  method: "get",
  path: "/inbox/conversations/{conversationId}/comments",
  request: { params: conversationParams, query: z.object(pageQuery).strict() },
  responses: { 200: jsonResponse("A page of comments", listResponse(commentSchema)) },
});

export const createComment = defineOperation({
  operationId: "createComment",
  tag: "Inbox",
  summary: "Comment on a conversation",
  description: `${commentNote} Members and above who may see the conversation.`,
  scope: "inbox:write",
  costUnits: costUnits.write,
  mcpTool: "inbox_comments_create",
  method: "post",
  path: "/inbox/conversations/{conversationId}/comments",
  resource: "/inbox/comments/{commentId}",
  request: {
    params: conversationParams,
    body: jsonBody(
      commentFields
        .superRefine((body, context) => {
          if (body.text === undefined && body.html === undefined)
            context.addIssue({ code: "custom", path: ["text"], message: "Give text or html" });
        })
        .openapi("CreateComment", { ...textOrHtml.documented, ...commentExample }),
    ),
  },
  responses: { 201: jsonResponse("The comment", commentResponse) },
});

export const updateComment = defineOperation({
  operationId: "updateComment",
  tag: "Inbox",
  summary: "Edit a comment",
  description: `Its author only (403 \`forbidden\` for anyone else). Content given (\`text\` or \`html\`) replaces the comment's; \`mentionUserIds\`, when given, replaces the mentions; what is not given stays. ${commentNote}`,
  scope: "inbox:write",
  costUnits: costUnits.write,
  mcpTool: "inbox_comments_update",
  method: "patch",
  path: "/inbox/comments/{commentId}",
  resource: "/inbox/comments/{commentId}",
  request: { params: commentParams, body: jsonBody(commentFields.openapi("UpdateComment", commentExample)) },
  responses: { 200: jsonResponse("The comment after the change", commentResponse) },
});

export const deleteComment = defineOperation({
  operationId: "deleteComment",
  tag: "Inbox",
  summary: "Delete a comment",
  description: "Its author, or an admin of the workspace (403 `forbidden` for anyone else).",
  scope: "inbox:write",
  costUnits: costUnits.write,
  mcpTool: "inbox_comments_delete",
  method: "delete",
  path: "/inbox/comments/{commentId}",
  resource: "/inbox/comments/{commentId}",
  request: { params: commentParams, body: jsonBody(emptyBodySchema, false) },
  responses: { 200: jsonResponse("The id of the deleted comment", deletedSchema) },
});

const color = z
  .string()
  .max(7)
  .regex(/^#[0-9a-fA-F]{6}$/, "Expected a color as #rrggbb")
  .transform((value) => value.toLowerCase())
  .openapi({ type: "string", maxLength: 7, pattern: "^#[0-9a-fA-F]{6}$", example: "#22c55e" });
const tagNote =
  "Names are unique in the workspace, compared case-insensitively (409 `conflict`). Conversations carry their tags as `tags: [{ id, name, color }]`; `PATCH /inbox/conversations/{conversationId}` sets them with `tagIds`, and the conversation list and inbox views filter by `tagIds`.";

export const listTags = defineOperation({
  operationId: "listTags",
  tag: "Inbox",
  summary: "List the tags of a workspace",
  description: `By name. ${tagNote}`,
  scope: "inbox:read",
  costUnits: costUnits.read,
  mcpTool: "inbox_tags_list",
  method: "get",
  path: "/inbox/tags",
  request: {
    query: z
      .object({ workspaceId: idSchema("ws").openapi({ param: { name: "workspaceId", in: "query" } }), ...pageQuery })
      .strict(),
  },
  responses: { 200: jsonResponse("A page of tags", listResponse(tagSchema)) },
});

export const createTag = defineOperation({
  operationId: "createTag",
  tag: "Inbox",
  summary: "Create a tag",
  description: `${tagNote} Members and above.`,
  scope: "inbox:write",
  costUnits: costUnits.write,
  mcpTool: "inbox_tags_create",
  method: "post",
  path: "/inbox/tags",
  resource: "/inbox/tags/{tagId}",
  request: {
    body: jsonBody(
      z
        .object({ workspaceId: idSchema("ws"), name: label(64), color })
        .strict()
        .openapi("CreateTag", { example: { workspaceId: "ws_01jd5q0m4x8r2w3y6z7a9b", name: "Billing", color: "#22c55e" } }),
    ),
  },
  responses: { 201: jsonResponse("The tag", tagResponse) },
});

export const updateTag = defineOperation({
  operationId: "updateTag",
  tag: "Inbox",
  summary: "Rename or recolor a tag",
  description: `${tagNote} Members and above.`,
  scope: "inbox:write",
  costUnits: costUnits.write,
  mcpTool: "inbox_tags_update",
  method: "patch",
  path: "/inbox/tags/{tagId}",
  resource: "/inbox/tags/{tagId}",
  request: {
    params: tagParams,
    body: jsonBody(
      z
        .object({ name: label(64).optional(), color: color.optional() })
        .strict()
        .openapi("UpdateTag", { example: { color: "#ef4444" } }),
    ),
  },
  responses: { 200: jsonResponse("The tag after the change", tagResponse) },
});

export const deleteTag = defineOperation({
  operationId: "deleteTag",
  tag: "Inbox",
  summary: "Delete a tag",
  description:
    "Removes the tag from every conversation and from the filter of every inbox view, in one transaction. Admins of the workspace.",
  scope: "inbox:write",
  costUnits: costUnits.write,
  mcpTool: "inbox_tags_delete",
  method: "delete",
  path: "/inbox/tags/{tagId}",
  resource: "/inbox/tags/{tagId}",
  request: { params: tagParams, body: jsonBody(emptyBodySchema, false) },
  responses: { 200: jsonResponse("The id of the deleted tag", deletedSchema) },
});
