import type { ComposeDraft } from "@crm/contracts";
import { regional } from "@crm/db";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { type ErrorBody, expectStatus } from "./crm";
import { countRows } from "./fixtures";
import { addInboxMember } from "./inbox";
import { mailWorkspace, sentMime } from "./mail";
import { call } from "./stack";

/** Drafts of new conversations: `/inbox/drafts`, and sending one with `POST /inbox/drafts/{draftId}/send`. */

type Workspace = Awaited<ReturnType<typeof mailWorkspace>>;
type DraftBody = { draft: ComposeDraft } & ErrorBody;
interface Sent {
  conversation: { id: string; subject: string };
  message: { id: string; text: string; html: string | null; to: { email: string }[] };
}

const { composeDrafts, conversations, messages } = regional;

const create = (workspace: Workspace, json: Record<string, unknown>, status = 201, key = workspace.key) =>
  expectStatus<DraftBody>(status, "/inbox/drafts", {
    method: "POST",
    key,
    json: { workspaceId: workspace.workspaceId, mailbox: workspace.mailbox, ...json },
  });
const get = (draftId: string, key: string, status = 200) => expectStatus<DraftBody>(status, `/inbox/drafts/${draftId}`, { key });
const patch = (draftId: string, key: string, json: unknown, status = 200) =>
  expectStatus<DraftBody>(status, `/inbox/drafts/${draftId}`, { method: "PATCH", key, json });
const remove = (draftId: string, key: string, status = 200) =>
  expectStatus<{ deletedId: string } & ErrorBody>(status, `/inbox/drafts/${draftId}`, { method: "DELETE", key });
const send = (draftId: string, key: string, status = 201) =>
  expectStatus<Sent & ErrorBody>(status, `/inbox/drafts/${draftId}/send`, { method: "POST", key });
const list = (workspace: Workspace, query = "", key = workspace.key, status = 200) =>
  expectStatus<{ data: ComposeDraft[]; pagination: { cursor: string | null; hasMore: boolean } } & ErrorBody>(
    status,
    `/inbox/drafts?workspaceId=${workspace.workspaceId}${query}`,
    { key },
  );

const conversationsIn = (workspace: Workspace) =>
  countRows("us", conversations, eq(conversations.workspaceId, workspace.workspaceId));
const messagesIn = (workspace: Workspace) => countRows("us", messages, eq(messages.workspaceId, workspace.workspaceId));

const letter = { to: ["ada@customer.example"], subject: "Your renewal", text: "Hello Ada," };

describe("drafts of new conversations: /inbox/drafts", () => {
  it("creates, reads, lists page by page, changes and discards the author's drafts", async () => {
    const workspace = await mailWorkspace();
    const { draft } = await create(workspace, { ...letter, cc: ["bea@customer.example"] });
    expect(draft).toEqual({
      id: expect.stringMatching(/^drf_/),
      workspaceId: workspace.workspaceId,
      mailbox: workspace.mailbox,
      to: ["ada@customer.example"],
      cc: ["bea@customer.example"],
      subject: "Your renewal",
      text: "Hello Ada,",
      html: null,
      createdAt: expect.any(Number),
      updatedAt: draft.createdAt,
    });
    expect((await get(draft.id, workspace.key)).draft).toEqual(draft);

    // Anything but workspace and mailbox may still be missing.
    const empty = (await create(workspace, {})).draft;
    expect(empty).toMatchObject({ to: [], cc: [], subject: null, text: null, html: null });
    const third = (await create(workspace, { subject: "Third" })).draft;
    const first = await list(workspace, "&limit=2");
    expect(first.data.map((item) => item.id)).toEqual([draft.id, empty.id]);
    expect(first.pagination.hasMore).toBe(true);
    const second = await list(workspace, `&limit=2&cursor=${first.pagination.cursor}`);
    expect(second.data.map((item) => item.id)).toEqual([third.id]);
    expect(second.pagination).toEqual({ cursor: null, hasMore: false });

    const changed = await patch(draft.id, workspace.key, { subject: "Your renewal, new prices", cc: [], text: null });
    expect(changed.draft).toMatchObject({
      subject: "Your renewal, new prices",
      cc: [],
      text: null,
      to: ["ada@customer.example"],
    });
    expect(changed.draft.updatedAt).toBeGreaterThanOrEqual(draft.updatedAt);
    expect((await get(draft.id, workspace.key)).draft).toEqual(changed.draft);

    expect((await remove(empty.id, workspace.key)).deletedId).toBe(empty.id);
    await get(empty.id, workspace.key, 404);
    await remove(empty.id, workspace.key, 404);
    expect((await list(workspace)).data.map((item) => item.id)).toEqual([draft.id, third.id]);
  });

  it("are their author's alone: another member gets 404 and an empty list", async () => {
    const workspace = await mailWorkspace();
    const { draft } = await create(workspace, letter);
    const colleague = await addInboxMember(workspace, "member", "all");
    await get(draft.id, colleague.key, 404);
    await patch(draft.id, colleague.key, { subject: "Mine now" }, 404);
    await remove(draft.id, colleague.key, 404);
    await send(draft.id, colleague.key, 404);
    expect((await list(workspace, "", colleague.key)).data).toEqual([]);
    expect((await get(draft.id, workspace.key)).draft.subject).toBe("Your renewal");
    expect(await conversationsIn(workspace)).toBe(0);
  });

  it("keeps HTML sanitized, on creation and on change, and clears it with null", async () => {
    const workspace = await mailWorkspace();
    const hostile = '<p onclick="steal()">Hi<script>alert(1)</script> <a href="javascript:alert(1)">there</a></p>';
    const { draft } = await create(workspace, { html: hostile });
    expect(draft.html).toBe("<p>Hi <a>there</a></p>");
    const changed = await patch(draft.id, workspace.key, {
      html: '<b style="position:fixed">Bold</b><img src=x onerror=alert(1)>',
    });
    expect(changed.draft.html).toContain("<b>Bold</b>");
    expect(changed.draft.html).not.toMatch(/onerror|position|alert/);
    expect((await patch(draft.id, workspace.key, { html: null })).draft.html).toBeNull();
  });

  it("refuses bad input of every kind with a 400 that names it, and writes nothing", async () => {
    const workspace = await mailWorkspace();
    const refused = async (json: Record<string, unknown>, path: string) => {
      const body = await create(workspace, json, 400);
      expect(body.error.code).toBe("invalid_request");
      expect(body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
    };
    await refused({ mailbox: "sales@elsewhere.example" }, "body.mailbox");
    await refused({ to: ["Ada <ada@customer.example>"] }, "body.to.0");
    await refused({ cc: ["not an address"] }, "body.cc.0");
    await refused({ subject: "Line\r\nBcc: everyone@example.com" }, "body.subject");
    await refused({ subject: "" }, "body.subject");
    await refused({ text: "x".repeat(100_001) }, "body.text");
    await refused({ html: 1 }, "body.html");
    await refused({ to: Array.from({ length: 51 }, (_, i) => `r${i}@customer.example`) }, "body.to");
    await refused({ id: "drf_01jd5q0m4x8r2w3y6z7a9b" }, "body.id");
    await refused({ workspaceId: "nope" }, "body.workspaceId");
    expect(await countRows("us", composeDrafts, eq(composeDrafts.workspaceId, workspace.workspaceId))).toBe(0);

    const { draft } = await create(workspace, letter);
    const patched = await patch(draft.id, workspace.key, { workspaceId: workspace.workspaceId }, 400);
    expect(patched.error.code).toBe("invalid_request");
    expect((await patch(draft.id, workspace.key, { mailbox: "other@test.example" }, 400)).error.details).toEqual([
      { path: "body.mailbox", message: "Not a mailbox of the workspace" },
    ]);
    expect((await list(workspace, "&cursor=forged", workspace.key, 400)).error.code).toBe("invalid_cursor");
    expect((await list(workspace, "&limit=0", workspace.key, 400)).error.code).toBe("invalid_request");
  });

  it("needs someone who may compose: viewers and record-scoped members are 403", async () => {
    const workspace = await mailWorkspace();
    const viewer = await addInboxMember(workspace, "viewer", "all");
    const scoped = await addInboxMember(workspace, "member", "record_reply");
    expect((await create(workspace, letter, 403, viewer.key)).error.code).toBe("forbidden");
    expect((await create(workspace, letter, 403, scoped.key)).error.code).toBe("forbidden");
  });
});

describe("POST /inbox/drafts/{draftId}/send", () => {
  it("sends the draft as compose does, and the draft is gone with the conversation's creation", async () => {
    const workspace = await mailWorkspace();
    const { draft } = await create(workspace, { ...letter, html: "<p>Hello <b>Ada</b></p>" });
    const sent = await send(draft.id, workspace.key);
    expect(sent.conversation.subject).toBe("Your renewal");
    expect(sent.message).toMatchObject({
      text: "Hello Ada,",
      html: "<p>Hello <b>Ada</b></p>",
      to: [{ email: "ada@customer.example" }],
    });
    const mime = await sentMime(sent.message.id, "ada@customer.example");
    expect(mime.subject).toBe("Your renewal");
    expect(mime.text?.trim()).toBe("Hello Ada,");
    await get(draft.id, workspace.key, 404);
    expect(await countRows("us", composeDrafts, eq(composeDrafts.id, draft.id))).toBe(0);
    const conversation = await call(`/inbox/conversations/${sent.conversation.id}`, { key: workspace.key });
    expect(conversation.status).toBe(200);
    // Sent once: the second attempt finds no draft.
    expect((await send(draft.id, workspace.key, 404)).error.code).toBe("not_found");
    expect(await messagesIn(workspace)).toBe(1);
  });

  it("sends a draft once under concurrent sends", async () => {
    const workspace = await mailWorkspace();
    const { draft } = await create(workspace, letter);
    const responses = await Promise.all(
      Array.from({ length: 6 }, () => call(`/inbox/drafts/${draft.id}/send`, { method: "POST", key: workspace.key })),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses[0]).toBe(201);
    // The others either met the claim (409) or came after the draft was gone (404).
    for (const status of statuses.slice(1)) expect([404, 409]).toContain(status);
    expect(await conversationsIn(workspace)).toBe(1);
    expect(await messagesIn(workspace)).toBe(1);
    expect(await countRows("us", composeDrafts, eq(composeDrafts.id, draft.id))).toBe(0);
  });

  it("refuses an incomplete draft and an unsubscribed recipient before anything is sent, and the draft stays sendable", async () => {
    const workspace = await mailWorkspace();
    const { draft } = await create(workspace, {});
    const incomplete = await send(draft.id, workspace.key, 400);
    expect(incomplete.error.details).toEqual([
      { path: "draft.to", message: "A draft needs recipients to be sent" },
      { path: "draft.subject", message: "A draft needs a subject to be sent" },
      { path: "draft.text", message: "A message needs a text or an HTML body" },
    ]);
    await patch(draft.id, workspace.key, { ...letter, to: ["gone@customer.example"] });
    await workspace.db
      .insert(regional.unsubscribedAddresses)
      .values({ organizationId: workspace.organizationId, address: "gone@customer.example", createdAt: Date.now() });
    expect((await send(draft.id, workspace.key, 409)).error.code).toBe("recipient_unsubscribed");
    expect(await conversationsIn(workspace)).toBe(0);
    // Each refusal released the draft: it changes and sends at once.
    await patch(draft.id, workspace.key, { to: ["ada@customer.example"] });
    await send(draft.id, workspace.key);
    expect(await conversationsIn(workspace)).toBe(1);
  });

  it("a draft being sent cannot change, be discarded or be sent again (409)", async () => {
    const workspace = await mailWorkspace();
    const { draft } = await create(workspace, letter);
    // The claim a send in progress holds, as it stands between claiming and storing.
    await workspace.db
      .update(composeDrafts)
      .set({ sendingUntil: Date.now() + 60_000 })
      .where(eq(composeDrafts.id, draft.id));
    expect((await patch(draft.id, workspace.key, { subject: "Changed" }, 409)).error.code).toBe("conflict");
    expect((await remove(draft.id, workspace.key, 409)).error.code).toBe("conflict");
    expect((await send(draft.id, workspace.key, 409)).error.code).toBe("conflict");
    expect((await get(draft.id, workspace.key)).draft.subject).toBe("Your renewal");
    // A claim past its time (a send that died) no longer holds the draft.
    await workspace.db
      .update(composeDrafts)
      .set({ sendingUntil: Date.now() - 1 })
      .where(eq(composeDrafts.id, draft.id));
    await send(draft.id, workspace.key);
    expect(await messagesIn(workspace)).toBe(1);
  });
});
