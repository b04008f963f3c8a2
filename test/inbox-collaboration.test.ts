import type { Conversation } from "@crm/contracts";
import { regional } from "@crm/db";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { storeMessage } from "../workers/api/src/domain/inbox/store-message";
import { type ErrorBody, expectStatus } from "./crm";
import { countRows, createMember } from "./fixtures";
import { addInboxMember, addPerson, inboundMessage, inboxWorkspace } from "./inbox";
import { call } from "./stack";

interface Page<T> {
  data: T[];
  pagination: { cursor: string | null; hasMore: boolean };
}

interface Comment {
  id: string;
  conversationId: string;
  authorId: string;
  html: string;
  text: string;
  mentionUserIds: string[];
}

interface Tag {
  id: string;
  name: string;
  color: string;
}

type Workspace = Awaited<ReturnType<typeof inboxWorkspace>>;

/** A conversation linked to a person record (its sender), and one linked to nothing. */
async function conversations(workspace: Workspace) {
  await addPerson(workspace.key, workspace.workspaceId, "Ada", "ada@customer.example");
  const linked = await storeMessage(
    workspace.db,
    inboundMessage(workspace.mailbox, { subject: "Linked", from: { email: "ada@customer.example", name: "Ada" } }),
  );
  const unlinked = await storeMessage(workspace.db, inboundMessage(workspace.mailbox, { subject: "Unlinked" }));
  return { linked: linked.conversationId, unlinked: unlinked.conversationId };
}

const comment = (key: string, conversationId: string, json: unknown, status = 201) =>
  expectStatus<{ comment: Comment } & ErrorBody>(status, `/inbox/conversations/${conversationId}/comments`, {
    method: "POST",
    key,
    json,
  });

const list = (workspace: Workspace, query: string, key = workspace.key) =>
  expectStatus<Page<Conversation>>(200, `/inbox/conversations?workspaceId=${workspace.workspaceId}${query}`, { key });

describe("comments on conversations", () => {
  it("are written by members, sanitized, listed oldest first, edited by their author only, deleted by author or admin", async () => {
    const workspace = await inboxWorkspace();
    const { linked } = await conversations(workspace);
    const bob = await addInboxMember(workspace, "member", "all");
    const admin = await createMember({
      organizationId: workspace.organizationId,
      region: "us",
      workspaceId: workspace.workspaceId,
      role: "admin",
    });
    const first = (
      await comment(workspace.key, linked, {
        html: '<p onclick="steal()">Please check <script>alert(1)</script><b>the invoice</b></p>',
        mentionUserIds: [bob.userId, bob.userId],
      })
    ).comment;
    expect(first).toMatchObject({
      conversationId: linked,
      authorId: workspace.userId,
      html: "<p>Please check <b>the invoice</b></p>",
      text: "Please check the invoice",
      mentionUserIds: [bob.userId],
    });
    const second = (await comment(bob.key, linked, { text: "On it" })).comment;
    expect(second).toMatchObject({ html: "", text: "On it", mentionUserIds: [] });

    const page = await expectStatus<Page<Comment>>(200, `/inbox/conversations/${linked}/comments?limit=1`, { key: bob.key });
    expect(page.data.map((item) => item.id)).toEqual([first.id]);
    const next = await expectStatus<Page<Comment>>(
      200,
      `/inbox/conversations/${linked}/comments?limit=1&cursor=${page.pagination.cursor}`,
      { key: bob.key },
    );
    expect(next.data.map((item) => item.id)).toEqual([second.id]);

    // Only the author edits; an admin may delete another's comment, a member may not.
    const refused = await expectStatus<ErrorBody>(403, `/inbox/comments/${first.id}`, {
      method: "PATCH",
      key: bob.key,
      json: { text: "Hijacked" },
    });
    expect(refused.error.code).toBe("forbidden");
    const edited = await expectStatus<{ comment: Comment }>(200, `/inbox/comments/${second.id}`, {
      method: "PATCH",
      key: bob.key,
      json: { text: "Done", mentionUserIds: [admin.userId] },
    });
    expect(edited.comment).toMatchObject({ text: "Done", mentionUserIds: [admin.userId] });
    await expectStatus(403, `/inbox/comments/${first.id}`, { method: "DELETE", key: bob.key });
    await expectStatus(200, `/inbox/comments/${first.id}`, { method: "DELETE", key: admin.key });
    await expectStatus(200, `/inbox/comments/${second.id}`, { method: "DELETE", key: bob.key });
    await expectStatus(404, `/inbox/comments/${second.id}`, { method: "DELETE", key: bob.key });
  });

  it("refuses mentions of non-members, empty and malformed bodies, and viewers", async () => {
    const workspace = await inboxWorkspace();
    const { linked } = await conversations(workspace);
    const stranger = await inboxWorkspace();
    const body = await comment(workspace.key, linked, { text: "Hi", mentionUserIds: [stranger.userId] }, 400);
    expect(body.error.message).toContain(stranger.userId);
    expect(body.error.details).toEqual([
      { path: "body.mentionUserIds.0", message: `${stranger.userId} cannot see this conversation` },
    ]);
    for (const json of [{}, { text: "" }, { text: "Hi", extra: true }, { html: 42 }, { text: "Hi", mentionUserIds: ["nope"] }])
      await comment(workspace.key, linked, json, 400);
    const viewer = await addInboxMember(workspace, "viewer", "all");
    await comment(viewer.key, linked, { text: "Hi" }, 403);
  });

  it("mention exactly the people who can see the conversation: the owner without a membership too", async () => {
    const workspace = await inboxWorkspace();
    const { linked, unlinked } = await conversations(workspace);
    const bob = await addInboxMember(workspace, "member", "all");
    const reader = await addInboxMember(workspace, "member", "record_read");
    // The organization's owner (workspace.userId) is no listed member of the workspace, yet sees all of it.
    const owner = workspace.userId;
    const made = (await comment(bob.key, unlinked, { text: "Over to you", mentionUserIds: [owner] })).comment;
    expect(made.mentionUserIds).toEqual([owner]);
    const edited = await expectStatus<{ comment: Comment }>(200, `/inbox/comments/${made.id}`, {
      method: "PATCH",
      key: bob.key,
      json: { mentionUserIds: [owner, bob.userId] },
    });
    expect(edited.comment).toMatchObject({ text: "Over to you", mentionUserIds: [owner, bob.userId] });
    // A record-scoped member sees (so may be mentioned on) a conversation linked to a record only.
    const onLinked = (await comment(bob.key, linked, { text: "Can you check?", mentionUserIds: [reader.userId, owner] })).comment;
    expect(onLinked.mentionUserIds).toEqual([reader.userId, owner]);
    const refused = await comment(bob.key, unlinked, { text: "Can you check?", mentionUserIds: [owner, reader.userId] }, 400);
    expect(refused.error.message).toContain(reader.userId);
    expect(refused.error.details).toEqual([
      { path: "body.mentionUserIds.1", message: `${reader.userId} cannot see this conversation` },
    ]);
    // A user of the organization who is a member of another workspace only sees nothing here.
    const elsewhere = await createMember({
      organizationId: workspace.organizationId,
      region: "us",
      workspaceId: (await inboxWorkspace()).workspaceId,
      role: "member",
    });
    await expectStatus(400, `/inbox/comments/${made.id}`, {
      method: "PATCH",
      key: bob.key,
      json: { mentionUserIds: [elsewhere.userId] },
    });
    expect(
      (await expectStatus<Page<Comment>>(200, `/inbox/conversations/${unlinked}/comments`, { key: bob.key })).data[0]
        ?.mentionUserIds,
    ).toEqual([owner, bob.userId]);
  });

  it("are seen only by whoever may see the conversation, in lists, by id and through q", async () => {
    const workspace = await inboxWorkspace();
    const { linked, unlinked } = await conversations(workspace);
    const onHidden = (await comment(workspace.key, unlinked, { text: "Quasar refund approved" })).comment;
    await comment(workspace.key, linked, { text: "Quasar shipment on hold" });
    expect((await list(workspace, "&q=quasar")).data.map((item) => item.id).sort()).toEqual([linked, unlinked].sort());
    expect((await list(workspace, "&q=refund")).data.map((item) => item.id)).toEqual([unlinked]);

    const reader = await addInboxMember(workspace, "member", "record_read");
    expect((await list(workspace, "&q=quasar", reader.key)).data.map((item) => item.id)).toEqual([linked]);
    expect((await list(workspace, "&q=refund", reader.key)).data).toEqual([]);
    await expectStatus(404, `/inbox/conversations/${unlinked}/comments`, { key: reader.key });
    await expectStatus(404, `/inbox/comments/${onHidden.id}`, { method: "PATCH", key: reader.key, json: { text: "x" } });
    await comment(reader.key, unlinked, { text: "Hi" }, 404);

    // An edit is found by its new words only; a deleted comment by none.
    await expectStatus(200, `/inbox/comments/${onHidden.id}`, { method: "PATCH", key: workspace.key, json: { text: "Zircon" } });
    expect((await list(workspace, "&q=refund")).data).toEqual([]);
    expect((await list(workspace, "&q=zircon")).data.map((item) => item.id)).toEqual([unlinked]);
    await expectStatus(200, `/inbox/comments/${onHidden.id}`, { method: "DELETE", key: workspace.key });
    expect((await list(workspace, "&q=zircon")).data).toEqual([]);
  });
});

describe("tags", () => {
  const createTag = (workspace: Workspace, name: string, status = 201, color = "#22C55E") =>
    expectStatus<{ tag: Tag } & ErrorBody>(status, "/inbox/tags", {
      method: "POST",
      key: workspace.key,
      json: { workspaceId: workspace.workspaceId, name, color },
    });

  it("have unique names and #rrggbb colors; concurrent duplicates give one tag and 409s", async () => {
    const workspace = await inboxWorkspace();
    const billing = (await createTag(workspace, "Billing")).tag;
    expect(billing).toMatchObject({ name: "Billing", color: "#22c55e" });
    expect((await createTag(workspace, "billing", 409)).error.code).toBe("conflict");
    await createTag(workspace, "Red", 400, "red");
    await createTag(workspace, "", 400);
    const racing = await Promise.all(
      Array.from({ length: 4 }, () =>
        call("/inbox/tags", {
          method: "POST",
          key: workspace.key,
          json: { workspaceId: workspace.workspaceId, name: "Urgent", color: "#ef4444" },
        }),
      ),
    );
    expect(racing.map((response) => response.status).sort()).toEqual([201, 409, 409, 409]);
    const renamed = await expectStatus<{ tag: Tag }>(200, `/inbox/tags/${billing.id}`, {
      method: "PATCH",
      key: workspace.key,
      json: { color: "#000000" },
    });
    expect(renamed.tag).toMatchObject({ name: "Billing", color: "#000000" });
    await expectStatus(409, `/inbox/tags/${billing.id}`, { method: "PATCH", key: workspace.key, json: { name: "URGENT" } });
    const page = await expectStatus<Page<Tag>>(200, `/inbox/tags?workspaceId=${workspace.workspaceId}`, { key: workspace.key });
    expect(page.data.map((tag) => tag.name)).toEqual(["Billing", "Urgent"]);
  });

  it("are set on conversations, filter the list and views, and leave both when deleted, in one batch", async () => {
    const workspace = await inboxWorkspace();
    const { linked, unlinked } = await conversations(workspace);
    const billing = (await createTag(workspace, "Billing")).tag;
    const vip = (await createTag(workspace, "VIP")).tag;
    const other = await inboxWorkspace();
    const foreign = (await createTag(other, "Foreign")).tag;

    const tagged = await expectStatus<{ conversation: Conversation }>(200, `/inbox/conversations/${linked}`, {
      method: "PATCH",
      key: workspace.key,
      json: { tagIds: [vip.id, billing.id] },
    });
    expect(tagged.conversation.tags).toEqual([
      { id: billing.id, name: "Billing", color: "#22c55e" },
      { id: vip.id, name: "VIP", color: "#22c55e" },
    ]);
    await expectStatus(200, `/inbox/conversations/${unlinked}`, {
      method: "PATCH",
      key: workspace.key,
      json: { tagIds: [vip.id] },
    });
    const refused = await expectStatus<ErrorBody>(400, `/inbox/conversations/${unlinked}`, {
      method: "PATCH",
      key: workspace.key,
      json: { tagIds: [foreign.id] },
    });
    expect(refused.error.details).toEqual([{ path: "body.tagIds.0", message: "Not a tag of the workspace" }]);

    expect((await list(workspace, `&tagIds=${billing.id}`)).data.map((item) => item.id)).toEqual([linked]);
    expect((await list(workspace, `&tagIds=${vip.id}`)).data.map((item) => item.id).sort()).toEqual([linked, unlinked].sort());
    expect((await list(workspace, `&tagIds=${foreign.id}`)).data).toEqual([]);
    // Record-scoped members see the tags only of what they may see.
    const reader = await addInboxMember(workspace, "member", "record_read");
    expect((await list(workspace, `&tagIds=${vip.id}`, reader.key)).data.map((item) => item.id)).toEqual([linked]);
    await expectStatus(400, `/inbox/conversations?workspaceId=${workspace.workspaceId}&tagIds=nope`, { key: workspace.key });

    const view = await expectStatus<{ view: { id: string; config: { filter: Record<string, unknown> } } }>(201, "/inbox/views", {
      method: "POST",
      key: workspace.key,
      json: {
        workspaceId: workspace.workspaceId,
        name: "Billing",
        visibility: "workspace",
        config: { filter: { tagIds: [billing.id] } },
      },
    });
    expect((await list(workspace, `&viewId=${view.view.id}`)).data.map((item) => item.id)).toEqual([linked]);
    const badView = await expectStatus<ErrorBody>(400, "/inbox/views", {
      method: "POST",
      key: workspace.key,
      json: {
        workspaceId: workspace.workspaceId,
        name: "Bad",
        visibility: "workspace",
        config: { filter: { tagIds: [foreign.id] } },
      },
    });
    expect(badView.error.details).toEqual([{ path: "body.config.filter.tagIds.0", message: "Not a tag of the workspace" }]);

    // Members may not delete tags; an admin's deletion leaves no trace in conversations or views.
    const member = await addInboxMember(workspace, "member", "all");
    await expectStatus(403, `/inbox/tags/${billing.id}`, { method: "DELETE", key: member.key });
    await expectStatus(200, `/inbox/tags/${billing.id}`, { method: "DELETE", key: workspace.key });
    const after = await expectStatus<{ conversation: Conversation }>(200, `/inbox/conversations/${linked}`, {
      key: workspace.key,
    });
    expect(after.conversation.tags.map((tag) => tag.id)).toEqual([vip.id]);
    expect(await countRows("us", regional.conversationTags, eq(regional.conversationTags.tagId, billing.id))).toBe(0);
    const views = await expectStatus<Page<{ id: string; config: { filter: Record<string, unknown> } }>>(
      200,
      `/inbox/views?workspaceId=${workspace.workspaceId}`,
      { key: workspace.key },
    );
    expect(views.data.find((item) => item.id === view.view.id)?.config.filter).toEqual({});
    await expectStatus(404, `/inbox/tags/${billing.id}`, { method: "PATCH", key: workspace.key, json: { name: "Back" } });
  });

  it("leave a view's filter when deleted without undoing a PATCH of that view at the same moment", async () => {
    const workspace = await inboxWorkspace();
    const keep = (await createTag(workspace, "Keep")).tag;
    type View = { id: string; config: { filter: Record<string, unknown> } };
    for (let round = 0; round < 6; round++) {
      const gone = (await createTag(workspace, `Gone ${round}`)).tag;
      const { view } = await expectStatus<{ view: View }>(201, "/inbox/views", {
        method: "POST",
        key: workspace.key,
        json: {
          workspaceId: workspace.workspaceId,
          name: `Round ${round}`,
          visibility: "workspace",
          config: { filter: { tagIds: [keep.id, gone.id] } },
        },
      });
      const [patched, deleted] = await Promise.all([
        call(`/inbox/views/${view.id}`, {
          method: "PATCH",
          key: workspace.key,
          json: { config: { filter: { tagIds: [keep.id, gone.id], isClosed: true } } },
        }),
        call(`/inbox/tags/${gone.id}`, { method: "DELETE", key: workspace.key }),
      ]);
      expect(deleted.status).toBe(200);
      // The PATCH lands before the deletion (and stays) or after it: 409 when the config it read
      // changed meanwhile, 400 when it names a tag that no longer exists.
      expect([200, 400, 409]).toContain(patched.status);
      const views = await expectStatus<Page<View>>(200, `/inbox/views?workspaceId=${workspace.workspaceId}`, {
        key: workspace.key,
      });
      const filter = views.data.find((item) => item.id === view.id)?.config.filter;
      expect(filter, `round ${round}: PATCH ${patched.status}`).toEqual(
        patched.status === 200 ? { tagIds: [keep.id], isClosed: true } : { tagIds: [keep.id] },
      );
    }
  });
});
