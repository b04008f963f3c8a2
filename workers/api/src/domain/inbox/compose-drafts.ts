import { ApiError, type ComposeDraft, type operations } from "@crm/contracts";
import { newId, regional } from "@crm/db";
import { and, eq, isNull, lte, or, type SQL } from "drizzle-orm";
import { reachWorkspace } from "../../access";
import {
  atPrecondition,
  changeWithoutLoss,
  movedSincePrecondition,
  nextUpdatedAt,
  preconditionFailed,
  runConditionalBatch,
} from "../../conditional-write";
import type { ServiceContext } from "../../env";
import type { BodyOf, QueryOf } from "../../inputs";
import { creationOrder, paginate } from "../../pagination";
import { sanitizedContent } from "../content/description";
import { type Outbox, requireSender, send, workspaceMailbox } from "./mail/send";

/**
 * Drafts of new conversations (`/inbox/drafts`): the compose fields kept by their author before a
 * conversation exists. Sending one claims it first (`sendingUntil`), so two concurrent sends send it
 * once, and deletes it in the batch that stores the conversation.
 */

const { composeDrafts } = regional;
type ComposeDraftRow = typeof composeDrafts.$inferSelect;

/**
 * How long a send's claim holds when the Worker dies mid-send (nothing released it). A send that
 * failed releases it at once: the recipients it reached are recorded, so sending again reaches only the others.
 */
const sendClaimMs = 120_000;

const draftResponse = (row: ComposeDraftRow): ComposeDraft => ({
  id: row.id,
  workspaceId: row.workspaceId,
  mailbox: row.mailbox,
  to: row.toAddresses,
  cc: row.ccAddresses,
  subject: row.subject,
  text: row.text,
  html: row.html,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
});

/** HTML as stored: sanitized, and null when nothing of it is left. */
const storedHtml = (html: string, field: string) => sanitizedContent(field, html, undefined).html || null;

/** Drafts not claimed by a send in progress. */
const unclaimed = (now: number) => or(isNull(composeDrafts.sendingUntil), lte(composeDrafts.sendingUntil, now)) as SQL;

/** Writing a draft needs what composing needs: a member or above who sees the whole inbox. */
async function reachToCompose(context: ServiceContext, workspaceId: string, what: string) {
  const access = await reachWorkspace(context.db, context.actor, workspaceId, { what, role: "member" });
  requireSender(access, "compose", false);
}

/** The caller's own draft: another author's, like an unknown id or another organization's, is 404. */
async function loadDraft(context: ServiceContext, draftId: string, purpose: "read" | "write"): Promise<ComposeDraftRow> {
  const { db, actor } = context;
  const [row] = await db
    .select()
    .from(composeDrafts)
    .where(and(eq(composeDrafts.id, draftId), eq(composeDrafts.authorId, actor.actor.id)))
    .limit(1);
  if (!row) throw new ApiError("not_found", "Draft not found");
  if (purpose === "write") await reachToCompose(context, row.workspaceId, "Draft");
  else await reachWorkspace(db, actor, row.workspaceId, { what: "Draft" });
  return row;
}

/**
 * Why a conditional write on a draft changed nothing: it is gone (404), it moved since the version
 * `If-Match` named (412), or a send holds it (409).
 */
async function goneOrClaimed(context: ServiceContext, draftId: string): Promise<ApiError> {
  const [row] = await context.db
    .select({ updatedAt: composeDrafts.updatedAt })
    .from(composeDrafts)
    .where(eq(composeDrafts.id, draftId))
    .limit(1);
  if (!row) return new ApiError("not_found", "Draft not found");
  return movedSincePrecondition(context, row)
    ? preconditionFailed()
    : new ApiError("conflict", "This draft is being sent; it can no longer change");
}

export async function createComposeDraftIn(
  context: ServiceContext,
  input: BodyOf<typeof operations.createComposeDraft>,
): Promise<ComposeDraft> {
  const { db, actor } = context;
  await reachToCompose(context, input.workspaceId, "Workspace");
  const mailbox = await workspaceMailbox(db, input.workspaceId, input.mailbox, "mailbox");
  const now = Date.now();
  const row: ComposeDraftRow = {
    id: newId("drf", now),
    workspaceId: input.workspaceId,
    authorId: actor.actor.id,
    mailbox: mailbox.address,
    toAddresses: input.to,
    ccAddresses: input.cc,
    subject: input.subject ?? null,
    text: input.text ?? null,
    html: input.html === undefined ? null : storedHtml(input.html, "html"),
    sendingUntil: null,
    createdAt: now,
    updatedAt: now,
  };
  await db.insert(composeDrafts).values(row);
  return draftResponse(row);
}

export const readComposeDraft = async (context: ServiceContext, draftId: string) =>
  draftResponse(await loadDraft(context, draftId, "read"));

/** The caller's drafts in a workspace, oldest first. */
export async function listComposeDraftsIn(
  context: ServiceContext,
  { workspaceId, limit, cursor }: QueryOf<typeof operations.listComposeDrafts>,
) {
  const { db, actor, cursorSecret } = context;
  await reachWorkspace(db, actor, workspaceId, { what: "Workspace" });
  const page = await paginate<ComposeDraftRow>(
    {
      scope: `compose-drafts:${actor.actor.id}:${workspaceId}`,
      limit,
      cursor,
      order: creationOrder(composeDrafts),
      fetch: ({ after, orderBy, limit }) =>
        db
          .select()
          .from(composeDrafts)
          .where(and(eq(composeDrafts.authorId, actor.actor.id), eq(composeDrafts.workspaceId, workspaceId), after))
          .orderBy(...orderBy)
          .limit(limit),
    },
    cursorSecret,
  );
  return { data: page.data.map(draftResponse), pagination: page.pagination };
}

/**
 * Each property given replaces the draft's (null clears subject, text and html), conditionally
 * (`changeWithoutLoss`); a draft being sent stays as it is (409).
 */
export async function updateComposeDraftOf(
  context: ServiceContext,
  draftId: string,
  changes: BodyOf<typeof operations.updateComposeDraft>,
): Promise<ComposeDraft> {
  const { db } = context;
  return changeWithoutLoss(context, {
    what: "Draft",
    named: Object.keys(changes),
    read: () => loadDraft(context, draftId, "write"),
    shown: draftResponse,
    write: async (draft) => {
      const now = Date.now();
      if (draft.sendingUntil !== null && draft.sendingUntil > now) throw await goneOrClaimed(context, draftId);
      const columns: Partial<ComposeDraftRow> = {
        ...(changes.mailbox === undefined
          ? {}
          : { mailbox: (await workspaceMailbox(db, draft.workspaceId, changes.mailbox, "mailbox")).address }),
        ...(changes.to === undefined ? {} : { toAddresses: changes.to }),
        ...(changes.cc === undefined ? {} : { ccAddresses: changes.cc }),
        ...(changes.subject === undefined ? {} : { subject: changes.subject }),
        ...(changes.text === undefined ? {} : { text: changes.text }),
        ...(changes.html === undefined ? {} : { html: changes.html === null ? null : storedHtml(changes.html, "html") }),
      };
      const updatedAt = nextUpdatedAt(draft, now);
      // A send that claimed the draft after it was read moves nothing else: the claim is part of the condition.
      await runConditionalBatch(db, composeDrafts, draft, columns, updatedAt, [], unclaimed(now));
      return draftResponse({ ...draft, ...columns, updatedAt });
    },
  });
}

export async function deleteComposeDraftOf(context: ServiceContext, draftId: string): Promise<void> {
  await loadDraft(context, draftId, "write");
  const removed = await context.db
    .delete(composeDrafts)
    .where(and(eq(composeDrafts.id, draftId), unclaimed(Date.now()), atPrecondition(context, composeDrafts.updatedAt)))
    .returning({ id: composeDrafts.id });
  if (removed.length === 0) throw await goneOrClaimed(context, draftId);
}

/** What a saved draft still lacks to be sent, as `invalid_request` details. */
function missingToSend(draft: ComposeDraftRow) {
  const missing: { path: string; message: string }[] = [];
  if (draft.toAddresses.length === 0) missing.push({ path: "draft.to", message: "A draft needs recipients to be sent" });
  if (!draft.subject?.trim()) missing.push({ path: "draft.subject", message: "A draft needs a subject to be sent" });
  if (!draft.text?.trim() && !draft.html?.trim()) {
    missing.push({ path: "draft.text", message: "A message needs a text or an HTML body" });
  }
  return missing;
}

/**
 * `POST /inbox/drafts/{draftId}/send`: claims the draft (one conditional UPDATE, so of two concurrent
 * sends one wins and the other is 409), sends it as compose does, and deletes it in the batch that
 * stores the new conversation. A refusal before any mail left (missing fields, an unsubscribed
 * recipient, a mailbox gone) releases the claim, so the corrected draft can be sent at once.
 */
export async function sendComposeDraftOf(context: ServiceContext, outbox: Outbox, draftId: string) {
  const { db } = context;
  await loadDraft(context, draftId, "write");
  const now = Date.now();
  const [claimed] = await db
    .update(composeDrafts)
    .set({ sendingUntil: now + sendClaimMs })
    .where(and(eq(composeDrafts.id, draftId), unclaimed(now)))
    .returning();
  if (!claimed) throw await goneOrClaimed(context, draftId);
  try {
    const missing = missingToSend(claimed);
    if (missing.length > 0) throw new ApiError("invalid_request", "The draft cannot be sent yet; see details.", missing);
    return await send(context, outbox, {
      mailbox: await workspaceMailbox(db, claimed.workspaceId, claimed.mailbox, "draft.mailbox"),
      workspaceId: claimed.workspaceId,
      to: claimed.toAddresses,
      cc: claimed.ccAddresses,
      subject: claimed.subject as string,
      text: claimed.text ?? undefined,
      html: claimed.html ?? undefined,
      inReplyTo: null,
      references: [],
      alongside: [db.delete(composeDrafts).where(eq(composeDrafts.id, draftId))],
      sendKey: `draft:${draftId}`,
    });
  } catch (error) {
    // Whatever stopped it, the recipients it reached are recorded under the draft: sending it again
    // reaches only the others, so the claim goes at once.
    await db.update(composeDrafts).set({ sendingUntil: null }).where(eq(composeDrafts.id, draftId));
    throw error;
  }
}
