import type { Conversation, InboxView } from "@crm/contracts";
import { regional } from "@crm/db";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { storeMessage } from "../workers/api/src/domain/inbox/store-message";
import { type ErrorBody, expectStatus } from "./crm";
import { createMember } from "./fixtures";
import { addInboxMember, inboundMessage, inboxWorkspace } from "./inbox";

interface Page<T> {
  data: T[];
  pagination: { cursor: string | null; hasMore: boolean };
}

type Workspace = Awaited<ReturnType<typeof inboxWorkspace>>;

const viewsOf = (workspace: Workspace, key = workspace.key, query = "") =>
  expectStatus<Page<InboxView>>(200, `/inbox/views?workspaceId=${workspace.workspaceId}${query}`, { key });
const names = (page: Page<InboxView>) => page.data.map((view) => view.name);

async function createView(workspace: Workspace, json: Record<string, unknown>, key = workspace.key) {
  const body = await expectStatus<{ view: InboxView }>(201, "/inbox/views", {
    method: "POST",
    key,
    json: { workspaceId: workspace.workspaceId, ...json },
  });
  return body.view;
}

const manager = (workspace: Workspace) =>
  createMember({ organizationId: workspace.organizationId, region: "us", workspaceId: workspace.workspaceId, role: "manager" });

const paths = (body: ErrorBody) => body.error.details?.map((detail) => detail.path);

describe("GET /inbox/views", () => {
  it("makes the system views of a workspace on first use, once, first in the list", async () => {
    const workspace = await inboxWorkspace();
    const [first, second] = await Promise.all([viewsOf(workspace), viewsOf(workspace)]);
    expect(names(first)).toEqual(["Inbox", "Assigned to me", "Closed"]);
    expect(second.data.map((view) => view.id)).toEqual(first.data.map((view) => view.id));
    const stored = await workspace.db
      .select()
      .from(regional.inboxViews)
      .where(eq(regional.inboxViews.workspaceId, workspace.workspaceId));
    expect(stored).toHaveLength(3);
    expect(first.data[0]).toMatchObject({
      workspaceId: workspace.workspaceId,
      isSystem: true,
      systemViewKey: "inbox",
      visibility: "workspace",
      memberUserIds: [],
      createdByUserId: null,
      creator: null,
      config: { filter: { isClosed: false }, sorts: [{ field: "lastMessageAtMs", direction: "desc" }] },
    });
    // "Assigned to me" shows whom it selects: the caller.
    expect(first.data[1]?.config.filter).toEqual({ isClosed: false, assigneeUserIds: [workspace.userId] });

    await createView(workspace, { name: "Custom", visibility: "workspace" });
    const page = await viewsOf(workspace, workspace.key, "&limit=2");
    expect(names(page)).toEqual(["Inbox", "Assigned to me"]);
    expect(names(await viewsOf(workspace, workspace.key, `&limit=2&cursor=${page.pagination.cursor}`))).toEqual([
      "Closed",
      "Custom",
    ]);
  });

  it("system views select by their key through viewId: open, the caller's assigned, closed", async () => {
    const workspace = await inboxWorkspace();
    const store = (subject: string, sentAtMs: number) =>
      storeMessage(workspace.db, inboundMessage(workspace.mailbox, { subject, sentAtMs }));
    await store("Open", 1_000);
    const assigned = await store("Assigned", 2_000);
    const closed = await store("Closed", 3_000);
    const ann = await addInboxMember(workspace, "member", "all");
    const patch = (conversationId: string, json: unknown) =>
      expectStatus(200, `/inbox/conversations/${conversationId}`, { method: "PATCH", key: workspace.key, json });
    await patch(assigned.conversationId, { assigneeUserIds: [ann.userId] });
    await patch(closed.conversationId, { isClosed: true, assigneeUserIds: [ann.userId] });
    const views = new Map((await viewsOf(workspace)).data.map((view) => [view.systemViewKey, view.id]));
    const listed = async (key: string | null, as = workspace.key) => {
      const page = await expectStatus<Page<Conversation>>(
        200,
        `/inbox/conversations?workspaceId=${workspace.workspaceId}&viewId=${views.get(key as InboxView["systemViewKey"])}`,
        { key: as },
      );
      return page.data.map((conversation) => conversation.subject);
    };
    expect(await listed("inbox")).toEqual(["Assigned", "Open"]);
    expect(await listed("closed")).toEqual(["Closed"]);
    expect(await listed("assigned_to_me", ann.key)).toEqual(["Assigned"]);
    expect(await listed("assigned_to_me")).toEqual([]);
  });

  it("shows system and workspace views, one's own personal views and restricted views one is listed on", async () => {
    const workspace = await inboxWorkspace();
    const [ann, ben] = await Promise.all([
      addInboxMember(workspace, "member", "all"),
      addInboxMember(workspace, "member", "all"),
    ]);
    await createView(workspace, { name: "Shared", visibility: "workspace" });
    await createView(workspace, { name: "Owner's own" });
    await createView(workspace, { name: "Ann's own" }, ann.key);
    await createView(workspace, { name: "Ann and owner", visibility: "restricted", memberUserIds: [ann.userId] });
    const system = ["Inbox", "Assigned to me", "Closed"];
    expect(names(await viewsOf(workspace))).toEqual([...system, "Shared", "Owner's own", "Ann and owner"]);
    expect(names(await viewsOf(workspace, ann.key))).toEqual([...system, "Shared", "Ann's own", "Ann and owner"]);
    expect(names(await viewsOf(workspace, ben.key))).toEqual([...system, "Shared"]);
  });

  it("is 404 for another organization's workspace", async () => {
    const [workspace, other] = await Promise.all([inboxWorkspace(), inboxWorkspace()]);
    await expectStatus(404, `/inbox/views?workspaceId=${other.workspaceId}`, { key: workspace.key });
  });
});

describe("POST /inbox/views", () => {
  it("creates a personal view by default, and the list applies it through viewId", async () => {
    const workspace = await inboxWorkspace();
    const store = (subject: string, sentAtMs: number) =>
      storeMessage(workspace.db, inboundMessage(workspace.mailbox, { subject, sentAtMs }));
    const older = await store("Older", 1_000);
    await store("Newer", 2_000);
    const ann = await addInboxMember(workspace, "member", "all");
    await expectStatus(200, `/inbox/conversations/${older.conversationId}`, {
      method: "PATCH",
      key: workspace.key,
      json: { assigneeUserIds: [ann.userId] },
    });
    const view = await createView(workspace, {
      name: "  Ann's, oldest first ",
      emoji: "⏳",
      config: {
        filter: { assigneeUserIds: [ann.userId], mailbox: workspace.mailbox },
        sorts: [{ field: "createdAt", direction: "asc" }],
      },
    });
    expect(view).toMatchObject({
      name: "Ann's, oldest first",
      emoji: "⏳",
      visibility: "personal",
      isSystem: false,
      systemViewKey: null,
      createdByUserId: workspace.userId,
      creator: { id: workspace.userId, name: "Owner", email: `${workspace.userId}@test.example` },
      memberUserIds: [],
    });
    expect(view.id).toMatch(/^ivw_/);
    const listed = await expectStatus<Page<Conversation>>(
      200,
      `/inbox/conversations?workspaceId=${workspace.workspaceId}&viewId=${view.id}`,
      { key: workspace.key },
    );
    expect(listed.data.map((conversation) => conversation.subject)).toEqual(["Older"]);
    const minimal = await createView(workspace, { name: "Everything" });
    expect(minimal.config).toEqual({ filter: {}, sorts: [] });
    expect(minimal.emoji).toBeNull();
  });

  it("refuses unknown config keys, non-members, a foreign mailbox and members on a non-restricted view, naming the paths", async () => {
    const [workspace, other] = await Promise.all([inboxWorkspace(), inboxWorkspace()]);
    const [ann, stranger] = await Promise.all([
      addInboxMember(workspace, "member", "all"),
      addInboxMember(other, "member", "all"),
    ]);
    const post = (json: Record<string, unknown>) =>
      expectStatus<ErrorBody>(400, "/inbox/views", {
        method: "POST",
        key: workspace.key,
        json: { workspaceId: workspace.workspaceId, name: "Bad", ...json },
      });
    expect(paths(await post({ config: { filter: { isOpen: true }, sorts: [] } }))).toContain("body.config.filter.isOpen");
    expect(paths(await post({ config: { filter: {}, sorts: [], columns: [] } }))).toContain("body.config.columns");
    expect(paths(await post({ config: { sorts: [{ field: "subject", direction: "asc" }] } }))).toContain(
      "body.config.sorts.0.field",
    );
    expect(paths(await post({ visibility: "everyone" }))).toContain("body.visibility");
    const references = await post({
      visibility: "workspace",
      memberUserIds: [ann.userId],
      config: { filter: { assigneeUserIds: [ann.userId, stranger.userId], mailbox: other.mailbox } },
    });
    expect(paths(references)).toEqual([
      "body.memberUserIds",
      "body.config.filter.assigneeUserIds.1",
      "body.config.filter.mailbox",
    ]);
    const restricted = await post({ visibility: "restricted", memberUserIds: [stranger.userId] });
    expect(paths(restricted)).toEqual(["body.memberUserIds.0"]);
    expect(await workspace.db.select().from(regional.inboxViews).where(eq(regional.inboxViews.name, "Bad"))).toEqual([]);
  });

  it("lets members write personal views only; workspace and restricted views need a manager", async () => {
    const workspace = await inboxWorkspace();
    const [member, viewer, boss] = await Promise.all([
      addInboxMember(workspace, "member", "all"),
      addInboxMember(workspace, "viewer", "all"),
      manager(workspace),
    ]);
    const post = (key: string, json: Record<string, unknown>) =>
      expectStatus<ErrorBody>(403, "/inbox/views", {
        method: "POST",
        key,
        json: { workspaceId: workspace.workspaceId, ...json },
      });
    await createView(workspace, { name: "Member's" }, member.key);
    expect((await post(member.key, { name: "Shared", visibility: "workspace" })).error.code).toBe("forbidden");
    await post(member.key, { name: "Few", visibility: "restricted", memberUserIds: [] });
    await post(viewer.key, { name: "Viewer's" });
    await createView(workspace, { name: "Team", visibility: "workspace" }, boss.key);
    await createView(workspace, { name: "Few", visibility: "restricted", memberUserIds: [member.userId] }, boss.key);
  });
});

describe("PATCH and DELETE /inbox/views/{inboxViewId}", () => {
  it("changes name, config, visibility and members; leaving restricted drops the members", async () => {
    const workspace = await inboxWorkspace();
    const ann = await addInboxMember(workspace, "member", "all");
    const view = await createView(workspace, { name: "Few", visibility: "restricted", memberUserIds: [ann.userId] });
    const patch = (json: unknown) =>
      expectStatus<{ view: InboxView }>(200, `/inbox/views/${view.id}`, { method: "PATCH", key: workspace.key, json });
    const renamed = await patch({ name: "Closed ones", emoji: "🔒", config: { filter: { isClosed: true } } });
    expect(renamed.view).toMatchObject({
      name: "Closed ones",
      emoji: "🔒",
      visibility: "restricted",
      memberUserIds: [ann.userId],
      config: { filter: { isClosed: true }, sorts: [] },
    });
    expect(renamed.view.updatedAt).toBeGreaterThanOrEqual(view.updatedAt);
    expect((await patch({ emoji: null })).view.emoji).toBeNull();
    const ben = await addInboxMember(workspace, "member", "all");
    expect((await patch({ memberUserIds: [ben.userId, ben.userId] })).view.memberUserIds).toEqual([ben.userId]);
    const shared = await patch({ visibility: "workspace" });
    expect(shared.view.memberUserIds).toEqual([]);
    const members = await workspace.db
      .select()
      .from(regional.inboxViewMembers)
      .where(eq(regional.inboxViewMembers.viewId, view.id));
    expect(members).toEqual([]);
    const body = await expectStatus<ErrorBody>(400, `/inbox/views/${view.id}`, {
      method: "PATCH",
      key: workspace.key,
      json: { config: { filter: { assigneeUserIds: ["usr_01jd5q0m4x8r2w3y6z7a9b"] } } },
    });
    expect(paths(body)).toEqual(["body.config.filter.assigneeUserIds.0"]);
  });

  it("deletes a view, which then is 404 everywhere", async () => {
    const workspace = await inboxWorkspace();
    const view = await createView(workspace, { name: "Short-lived" });
    const deleted = await expectStatus<{ deletedId: string }>(200, `/inbox/views/${view.id}`, {
      method: "DELETE",
      key: workspace.key,
    });
    expect(deleted.deletedId).toBe(view.id);
    await expectStatus(404, `/inbox/views/${view.id}`, { method: "DELETE", key: workspace.key });
    await expectStatus(404, `/inbox/views/${view.id}`, { method: "PATCH", key: workspace.key, json: { name: "Back" } });
    await expectStatus(404, `/inbox/conversations?workspaceId=${workspace.workspaceId}&viewId=${view.id}`, {
      key: workspace.key,
    });
  });

  it("refuses to change or delete system views: 409 system_resource", async () => {
    const workspace = await inboxWorkspace();
    for (const view of (await viewsOf(workspace)).data) {
      const renamed = await expectStatus<ErrorBody>(409, `/inbox/views/${view.id}`, {
        method: "PATCH",
        key: workspace.key,
        json: { name: "Mine now" },
      });
      expect(renamed.error.code).toBe("system_resource");
      await expectStatus(409, `/inbox/views/${view.id}`, { method: "DELETE", key: workspace.key });
    }
    expect(names(await viewsOf(workspace))).toEqual(["Inbox", "Assigned to me", "Closed"]);
  });

  it("is 404 for views the caller cannot see and 403 for views they see but may not write", async () => {
    const workspace = await inboxWorkspace();
    const [ann, ben, boss] = await Promise.all([
      addInboxMember(workspace, "member", "all"),
      addInboxMember(workspace, "member", "all"),
      manager(workspace),
    ]);
    const annsOwn = await createView(workspace, { name: "Ann's own" }, ann.key);
    const restricted = await createView(workspace, { name: "Few", visibility: "restricted", memberUserIds: [ann.userId] });
    const shared = await createView(workspace, { name: "Team", visibility: "workspace" }, boss.key);
    const patch = (status: number, viewId: string, key: string) =>
      expectStatus<ErrorBody>(status, `/inbox/views/${viewId}`, { method: "PATCH", key, json: { name: "Changed" } });
    // Not even an owner sees another's personal view.
    await patch(404, annsOwn.id, workspace.key);
    await patch(404, annsOwn.id, boss.key);
    await patch(404, restricted.id, ben.key);
    await patch(403, restricted.id, ann.key);
    await patch(403, shared.id, ben.key);
    await expectStatus(403, `/inbox/views/${shared.id}`, { method: "DELETE", key: ann.key });
    // A member may not make their own view visible to others.
    await expectStatus(403, `/inbox/views/${annsOwn.id}`, { method: "PATCH", key: ann.key, json: { visibility: "workspace" } });
    await patch(200, annsOwn.id, ann.key);
    await patch(200, restricted.id, workspace.key);
    await patch(200, shared.id, boss.key);
    const other = await inboxWorkspace();
    await expectStatus(404, `/inbox/views/${shared.id}`, { method: "DELETE", key: other.key });
  });
});
