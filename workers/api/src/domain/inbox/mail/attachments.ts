import { ApiError } from "@crm/contracts";
import { regional } from "@crm/db";
import { and, eq } from "drizzle-orm";
import { reachWorkspace } from "../../../access";
import type { ServiceContext } from "../../../env";

const { attachments, conversations, messages } = regional;

/** `filename*` of RFC 6266 (UTF-8, percent-encoded) with a plain ASCII fallback, so no name can break the header. */
function contentDisposition(filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]|["\\%]/g, "_");
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

/**
 * `GET /inbox/messages/{id}/attachments/{attachmentId}`: the bytes of one attachment, after the
 * checks of its message: the workspace's reach, and record-scoped inbox access (a conversation
 * linked to no record does not exist for `record_read` and `record_reply` members).
 */
export async function attachmentResponse(
  { db, actor }: ServiceContext,
  bucket: R2Bucket,
  messageId: string,
  attachmentId: string,
): Promise<Response> {
  const [message] = await db
    .select({ workspaceId: messages.workspaceId, hasLinkedRecords: conversations.hasLinkedRecords })
    .from(messages)
    .innerJoin(conversations, eq(conversations.id, messages.conversationId))
    .where(eq(messages.id, messageId))
    .limit(1);
  if (!message) throw new ApiError("not_found", "Message not found");
  const access = await reachWorkspace(db, actor, message.workspaceId, { what: "Message" });
  if (access.inboxAccess !== "all" && !message.hasLinkedRecords) throw new ApiError("not_found", "Message not found");
  const [file] = await db
    .select()
    .from(attachments)
    .where(and(eq(attachments.id, attachmentId), eq(attachments.messageId, messageId)))
    .limit(1);
  const object = file ? await bucket.get(file.r2Key) : null;
  if (!file || !object) throw new ApiError("not_found", "Attachment not found");
  return new Response(object.body, {
    headers: {
      "content-type": file.contentType,
      "content-length": String(object.size),
      "content-disposition": contentDisposition(file.filename),
      // Mail from anyone: never sniffed into something else, never run as a page of our origin.
      "x-content-type-options": "nosniff",
      "content-security-policy": "sandbox",
      "cache-control": "private, no-store",
    },
  });
}
