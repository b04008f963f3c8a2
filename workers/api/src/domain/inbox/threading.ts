import { ApiError } from "@crm/contracts";
import { regional } from "@crm/db";
import { and, eq, inArray } from "drizzle-orm";
import type { Database } from "../../database";

const { conversations, messages } = regional;

/** RFC 5322 lines stop at 998 characters: a longer Message-ID or reference is not one the inbox keeps. */
export const maxHeaderLength = 998;
/** The newest references matter for threading; a response lists at most 100. */
const maxReferences = 100;

/** A Message-ID as stored: without angle brackets and surrounding space. */
export const bareMessageId = (value: string) => value.trim().replace(/^<+/, "").replace(/>+$/, "").trim();

/** The headers that place a message in a thread, as stored. */
export interface ThreadingHeaders {
  messageIdHeader: string;
  inReplyTo: string | null;
  references: string[];
}

/**
 * The message's conversation: the one a reply sent from the API names, else the parent named by
 * In-Reply-To, else the latest stored one of References (oldest first), else none (a new one).
 * A Message-ID stored before is a repeat: its ids are answered and nothing is written.
 */
export async function threadOf(
  db: Database,
  workspaceId: string,
  explicitConversationId: string | undefined,
  { messageIdHeader, inReplyTo, references }: ThreadingHeaders,
): Promise<{ repeated: { messageId: string; conversationId: string } } | { conversationId: string | undefined }> {
  const known = await knownMessages(db, workspaceId, [messageIdHeader, ...(inReplyTo ? [inReplyTo] : []), ...references]);
  const repeated = known.get(messageIdHeader);
  if (repeated) return { repeated };
  if (explicitConversationId) return { conversationId: await conversationOf(db, workspaceId, explicitConversationId) };
  return {
    conversationId:
      (inReplyTo ? known.get(inReplyTo)?.conversationId : undefined) ??
      [...references]
        .reverse()
        .map((id) => known.get(id)?.conversationId)
        .find(Boolean),
  };
}

/** The message's threading headers as stored; 400 without a usable Message-ID. Related ids that cannot be kept are left out. */
export function threadingHeaders(messageId: string, inReplyTo: string | null, references: string[]): ThreadingHeaders {
  const messageIdHeader = bareMessageId(messageId);
  if (!messageIdHeader || messageIdHeader.length > maxHeaderLength) {
    throw new ApiError("invalid_request", "A message needs a Message-ID of at most 998 characters");
  }
  const related = (id: string) => id.length > 0 && id.length <= maxHeaderLength;
  const repliedTo = inReplyTo ? bareMessageId(inReplyTo) : "";
  return {
    messageIdHeader,
    inReplyTo: related(repliedTo) ? repliedTo : null,
    references: references.map(bareMessageId).filter(related).slice(-maxReferences),
  };
}

/** Stored messages of the workspace among some Message-IDs: their ids and conversations, by Message-ID. */
export async function knownMessages(db: Database, workspaceId: string, messageIds: string[]) {
  // The References of a long thread can be long; the newest ones (last) matter most, and D1 binds 100 parameters.
  const [own, ...related] = messageIds;
  const wanted = [...new Set([own as string, ...related.slice(-90)])];
  const rows = await db
    .select({ id: messages.id, conversationId: messages.conversationId, header: messages.messageIdHeader })
    .from(messages)
    .where(and(eq(messages.workspaceId, workspaceId), inArray(messages.messageIdHeader, wanted)));
  return new Map(rows.map((row) => [row.header, { messageId: row.id, conversationId: row.conversationId }]));
}

/** The conversation a reply names, in the mailbox's workspace. */
async function conversationOf(db: Database, workspaceId: string, conversationId: string): Promise<string> {
  const [row] = await db
    .select({ id: conversations.id })
    .from(conversations)
    .where(and(eq(conversations.id, conversationId), eq(conversations.workspaceId, workspaceId)))
    .limit(1);
  if (!row) throw new ApiError("not_found", "Conversation not found");
  return row.id;
}
