import { ApiError, type Draft, type operations } from "@crm/contracts";
import { regional } from "@crm/db";
import { and, eq } from "drizzle-orm";
import { atPrecondition, movedSincePrecondition, preconditionFailed } from "../../conditional-write";
import type { ServiceContext } from "../../env";
import type { BodyOf } from "../../inputs";
import { sanitizedContent } from "../content/description";
import { loadConversation } from "./conversations";

const { drafts } = regional;
type DraftRow = typeof drafts.$inferSelect;

const draftResponse = (row: DraftRow): Draft => ({
  conversationId: row.conversationId,
  text: row.text,
  ...(row.html === null ? {} : { html: row.html }),
  to: row.toAddresses,
  cc: row.ccAddresses,
  updatedAt: row.updatedAt,
});

const mine = (context: ServiceContext, conversationId: string) =>
  and(eq(drafts.conversationId, conversationId), eq(drafts.userId, context.actor.actor.id));

/**
 * Creates or replaces the caller's draft (under `If-Match`, only the version named). HTML only where it can be sent as such (reference rule 9:
 * e-mail conversations), stored sanitized like every HTML the inbox keeps.
 */
export async function saveDraft(
  context: ServiceContext,
  conversationId: string,
  input: BodyOf<typeof operations.putConversationDraft>,
): Promise<Draft> {
  const { db, actor } = context;
  const { row } = await loadConversation(context, conversationId, "member");
  if (input.html !== undefined && row.channel !== "email") {
    throw new ApiError("invalid_request", "HTML drafts are for e-mail conversations only", [
      { path: "html", message: `A ${row.channel} conversation takes text only` },
    ]);
  }
  const content = input.html === undefined ? null : sanitizedContent("html", input.html, input.text);
  const html = content?.html ?? null;
  const draft: DraftRow = {
    conversationId: row.id,
    userId: actor.actor.id,
    workspaceId: row.workspaceId,
    // Without text the HTML's plain text stands for it, as when the message is sent.
    text: input.text ?? content?.plain ?? "",
    html,
    toAddresses: input.to,
    ccAddresses: input.cc,
    updatedAt: Date.now(),
  };
  const { text, toAddresses, ccAddresses, updatedAt } = draft;
  if (context.precondition !== undefined) {
    // Under If-Match the draft is replaced only at the version named (one statement): one that moved
    // or was discarded since is 412, never written over or made again.
    const version = Math.max(updatedAt, context.precondition + 1);
    const replaced = await db
      .update(drafts)
      .set({ text, html, toAddresses, ccAddresses, updatedAt: version })
      .where(and(mine(context, conversationId), atPrecondition(context, drafts.updatedAt)))
      .returning({ userId: drafts.userId });
    if (replaced.length === 0) throw preconditionFailed();
    return draftResponse({ ...draft, updatedAt: version });
  }
  await db
    .insert(drafts)
    .values(draft)
    .onConflictDoUpdate({
      target: [drafts.conversationId, drafts.userId],
      set: { text, html, toAddresses, ccAddresses, updatedAt },
    });
  return draftResponse(draft);
}

export async function readDraft(context: ServiceContext, conversationId: string): Promise<Draft> {
  await loadConversation(context, conversationId);
  const [row] = await context.db.select().from(drafts).where(mine(context, conversationId)).limit(1);
  if (!row) throw new ApiError("not_found", "You have no draft of this conversation");
  return draftResponse(row);
}

/** Discards the caller's draft; under `If-Match`, only at the version named (one statement: a save meanwhile makes it 412). */
export async function discardDraft(context: ServiceContext, conversationId: string): Promise<void> {
  await loadConversation(context, conversationId, "member");
  const removed = await context.db
    .delete(drafts)
    .where(and(mine(context, conversationId), atPrecondition(context, drafts.updatedAt)))
    .returning({ userId: drafts.userId });
  if (removed.length > 0) return;
  const [still] = await context.db.select({ updatedAt: drafts.updatedAt }).from(drafts).where(mine(context, conversationId));
  if (still && movedSincePrecondition(context, still)) throw preconditionFailed();
  throw new ApiError("not_found", "You have no draft of this conversation");
}
