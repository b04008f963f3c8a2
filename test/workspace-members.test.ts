import { env } from "cloudflare:test";
import { signDirectoryQuery } from "@crm/contracts";
import { control, newId } from "@crm/db";
import { eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { describe, expect, it } from "vitest";
import membersReadMigration from "../migrations/control/0012_members_read_scope.sql?raw";
import { addConversation, createKey } from "./fixtures";
import { addInboxMember, addPerson, inboxWorkspace } from "./inbox";
import { call } from "./stack";

const controlDb = () => drizzle(env.CONTROL_DB);

interface Member {
  id: string;
  type: "user" | "agent";
  name: string;
  email: string | null;
  role: string | null;
  isInheritedAccess: boolean;
  inboxAccess: string;
}
interface Page<T> {
  data: T[];
  pagination: { cursor: string | null; hasMore: boolean };
}

async function get<T>(path: string, key: string, status = 200): Promise<T> {
  const response = await call(path, { key });
  expect(response.status, await response.clone().text()).toBe(status);
  return (await response.json()) as T;
}

/** Every member of the workspace, a page of `limit` at a time. */
async function allMembers(workspaceId: string, key: string, limit = 100): Promise<Member[]> {
  const members: Member[] = [];
  let cursor: string | null = null;
  do {
    const page: Page<Member> = await get(
      `/workspaces/${workspaceId}/members?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      key,
    );
    members.push(...page.data);
    cursor = page.pagination.cursor;
  } while (cursor);
  return members;
}

async function addOrganizationUser(organizationId: string, name: string, role: "owner" | "admin" | "member") {
  const id = newId("usr");
  await controlDb().batch([
    controlDb()
      .insert(control.users)
      .values({ id, email: `${id}@people.example`, name, createdAt: Date.now() }),
    controlDb().insert(control.organizationMembers).values({ organizationId, userId: id, role, createdAt: Date.now() }),
  ]);
  return id;
}

const rename = (userId: string, name: string) =>
  controlDb().update(control.users).set({ name }).where(eq(control.users.id, userId));

describe("GET /workspaces/{workspaceId}/members", () => {
  it("lists members, admins and owners through inherited access, and agents; not users outside the workspace", async () => {
    const workspace = await inboxWorkspace();
    const scoped = await addInboxMember(workspace, "member", "record_read");
    const admin = await addOrganizationUser(workspace.organizationId, "Ada Admin", "admin");
    const outsider = await addOrganizationUser(workspace.organizationId, "Otto Outsider", "member");
    const agentId = newId("agt");
    await controlDb()
      .insert(control.agents)
      .values({ id: agentId, organizationId: workspace.organizationId, name: "Triage bot", createdAt: Date.now() });

    const members = await allMembers(workspace.workspaceId, workspace.key, 1);
    expect(members.map((member) => member.id)).toEqual(
      [workspace.userId, scoped.userId, admin, agentId].sort((a, b) => (a < b ? -1 : 1)),
    );
    const byId = new Map(members.map((member) => [member.id, member]));
    expect(byId.get(workspace.userId)).toEqual({
      id: workspace.userId,
      type: "user",
      name: "Owner",
      email: `${workspace.userId}@test.example`,
      role: "owner",
      isInheritedAccess: true,
      inboxAccess: "all",
    });
    expect(byId.get(admin)).toMatchObject({ name: "Ada Admin", role: "admin", isInheritedAccess: true, inboxAccess: "all" });
    expect(byId.get(scoped.userId)).toMatchObject({
      type: "user",
      role: "member",
      isInheritedAccess: false,
      inboxAccess: "record_read",
    });
    expect(byId.get(agentId)).toEqual({
      id: agentId,
      type: "agent",
      name: "Triage bot",
      email: null,
      role: null,
      isInheritedAccess: true,
      inboxAccess: "all",
    });
    expect(byId.has(outsider)).toBe(false);
    // A member sees the same directory with a key holding members:read alone.
    const { key } = await createKey({
      organizationId: workspace.organizationId,
      ownerId: scoped.userId,
      scopes: ["members:read"],
    });
    expect((await allMembers(workspace.workspaceId, key)).map((member) => member.id)).toEqual(members.map((member) => member.id));
  });

  it("needs members:read; a key made before the scope existed holds it through any other read scope", async () => {
    const workspace = await inboxWorkspace();
    const path = `/workspaces/${workspace.workspaceId}/members`;
    const keyWith = (scopes: string[]) =>
      createKey({ organizationId: workspace.organizationId, ownerId: workspace.userId, scopes });
    const usageOnly = await keyWith(["usage:read"]);
    const refused = await get<{ error: { code: string; message: string } }>(path, usageOnly.key, 403);
    expect(refused.error.code).toBe("insufficient_scope");
    expect(refused.error.message).toContain("members:read");
    await get(path, (await keyWith(["members:read"])).key);

    // Keys as they were before the migration: one with a read scope gains members:read, one with
    // only write scopes does not, and applying the migration twice changes nothing more.
    const beforeRead = await keyWith(["crm:records:read", "tasks:write"]);
    const beforeWrite = await keyWith(["tasks:write"]);
    const statements = membersReadMigration
      .split(";")
      .map((statement) => statement.replace(/^\s*--.*$/gm, "").trim())
      .filter(Boolean);
    for (let run = 0; run < 2; run++) for (const statement of statements) await env.CONTROL_DB.prepare(statement).run();
    const scopesOf = async (id: string) =>
      (await controlDb().select().from(control.apiKeys).where(eq(control.apiKeys.id, id)))[0]?.scopes;
    expect(await scopesOf(beforeRead.id)).toEqual(["crm:records:read", "tasks:write", "members:read"]);
    expect(await scopesOf(beforeWrite.id)).toEqual(["tasks:write"]);
    await get(path, beforeRead.key);
    await get(path, beforeWrite.key, 403);
  });

  it("refuses a workspace outside the caller's reach and a cursor of another list", async () => {
    const workspace = await inboxWorkspace();
    const other = await inboxWorkspace();
    const error = await get<{ error: { code: string } }>(`/workspaces/${other.workspaceId}/members`, workspace.key, 404);
    expect(error.error.code).toBe("not_found");
    await addOrganizationUser(workspace.organizationId, "Second Admin", "admin");
    const first = await get<Page<Member>>(`/workspaces/${workspace.workspaceId}/members?limit=1`, workspace.key);
    const sibling = await get<{ error: { code: string } }>(
      `/workspaces/${workspace.workspaceId}/members?limit=1&cursor=${encodeURIComponent(`${first.pagination.cursor}x`)}`,
      workspace.key,
      400,
    );
    expect(sibling.error.code).toBe("invalid_cursor");
    for (const query of ["limit=0", "limit=101", "limit=abc", "foo=1"]) {
      const bad = await get<{ error: { code: string } }>(
        `/workspaces/${workspace.workspaceId}/members?${query}`,
        workspace.key,
        400,
      );
      expect(bad.error.code).toBe("invalid_request");
    }
    await get(`/workspaces/not-an-id/members`, workspace.key, 400);
  });
});

describe("people shown inside resources", () => {
  it("shows assignees as { id, name, email }, and a changed name everywhere on the next read", async () => {
    const workspace = await inboxWorkspace();
    const bob = await addInboxMember(workspace, "member", "all");
    await rename(bob.userId, "Bob Baker");
    const conversationId = await addConversation("us", workspace.workspaceId, "Renewal");
    const patched = await call(`/inbox/conversations/${conversationId}`, {
      method: "PATCH",
      key: workspace.key,
      json: { assigneeUserIds: [bob.userId] },
    });
    expect(patched.status).toBe(200);
    const bobShown = { id: bob.userId, name: "Bob Baker", email: `${bob.userId}@test.example` };
    expect(((await patched.json()) as { conversation: { assignees: unknown } }).conversation.assignees).toEqual([bobShown]);
    const recordId = await addPerson(workspace.key, workspace.workspaceId, "Peter Customer", "peter@customer.example");
    const created = await call(`/records/${recordId}/tasks`, {
      method: "POST",
      key: workspace.key,
      json: { title: "Call back", assigneeUserIds: [bob.userId] },
    });
    expect(created.status).toBe(201);
    const { task } = (await created.json()) as { task: { id: string; assigneeUserIds: string[]; assignees: unknown } };
    expect(task.assigneeUserIds).toEqual([bob.userId]);
    expect(task.assignees).toEqual([bobShown]);

    const view = await call("/inbox/views", {
      method: "POST",
      key: bob.key,
      json: { workspaceId: workspace.workspaceId, name: "Mine", visibility: "personal" },
    });
    expect(view.status).toBe(201);
    expect(((await view.json()) as { view: { creator: unknown } }).view.creator).toEqual(bobShown);

    await rename(bob.userId, "Robert Baker");
    const renamed = { ...bobShown, name: "Robert Baker" };
    const views = await get<Page<{ name: string; creator: unknown }>>(
      `/inbox/views?workspaceId=${workspace.workspaceId}`,
      bob.key,
    );
    expect(views.data.find((item) => item.name === "Mine")?.creator).toEqual(renamed);
    const conversation = await get<{ conversation: { assignees: unknown } }>(
      `/inbox/conversations/${conversationId}`,
      workspace.key,
    );
    expect(conversation.conversation.assignees).toEqual([renamed]);
    const list = await get<Page<{ id: string; assignees: unknown }>>(
      `/inbox/conversations?workspaceId=${workspace.workspaceId}`,
      workspace.key,
    );
    expect(list.data.find((item) => item.id === conversationId)?.assignees).toEqual([renamed]);
    expect((await get<{ task: { assignees: unknown } }>(`/tasks/${task.id}`, workspace.key)).task.assignees).toEqual([renamed]);
    const tasks = await get<Page<{ id: string; assignees: unknown }>>(
      `/tasks?workspaceId=${workspace.workspaceId}&assigneeUserId=${bob.userId}`,
      workspace.key,
    );
    expect(tasks.data.map((item) => item.assignees)).toEqual([[renamed]]);
    const members = await allMembers(workspace.workspaceId, workspace.key);
    expect(members.find((member) => member.id === bob.userId)?.name).toBe("Robert Baker");
  });
});

describe("POST /internal/directory (a region asks the gateway for people)", () => {
  const ask = (region: string, body: string) =>
    call(`/internal/directory?region=${region}`, { method: "POST", headers: { "content-type": "text/plain" }, body });

  it("answers a query the named region signed, and refuses any other with 401", async () => {
    const workspace = await inboxWorkspace();
    const query = { organizationId: workspace.organizationId, userIds: [workspace.userId], everyAdmin: false, agents: false };
    const answered = await ask("us", await signDirectoryQuery({ ...query, region: "us" }, env.GATEWAY_CONTEXT_SECRET_US));
    expect(answered.status).toBe(200);
    expect(((await answered.json()) as { entries: unknown[] }).entries).toEqual([
      { id: workspace.userId, type: "user", name: "Owner", email: `${workspace.userId}@test.example`, organizationRole: "owner" },
    ]);
    const refused = [
      await ask("us", "garbage"),
      // Signed by the other region, or for the other region, or too long ago.
      await ask("us", await signDirectoryQuery({ ...query, region: "us" }, env.GATEWAY_CONTEXT_SECRET_EU)),
      await ask("us", await signDirectoryQuery({ ...query, region: "eu" }, env.GATEWAY_CONTEXT_SECRET_US)),
      await ask("us", await signDirectoryQuery({ ...query, region: "us" }, env.GATEWAY_CONTEXT_SECRET_US, Date.now() - 120_000)),
      await ask("mars", await signDirectoryQuery({ ...query, region: "us" }, env.GATEWAY_CONTEXT_SECRET_US)),
    ];
    expect(refused.map((response) => response.status)).toEqual([401, 401, 401, 401, 401]);
  });
});
