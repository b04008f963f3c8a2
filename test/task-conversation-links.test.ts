import { describe, expect, it } from "vitest";
import { type ErrorBody, expectStatus } from "./crm";
import { addConversation } from "./fixtures";
import { addInboxMember, addPerson, inboxWorkspace } from "./inbox";

/**
 * Reference rule 8 through tasks: a record-scoped member (`record_read`, `record_reply`) never
 * learns of a conversation linked to no record, neither by linking it to a task (the answer for
 * an unlinked id is the one for an unknown id) nor by reading a task someone else linked it to.
 */

interface Task {
  id: string;
  linkedResources: { resourceType: string; resourceId: string; label: string; channel: string }[];
}
type Page<T> = { data: T[] };

async function scene() {
  const workspace = await inboxWorkspace();
  const person = await addPerson(workspace.key, workspace.workspaceId, "Ada", `ada-${crypto.randomUUID()}@customer.example`);
  const linked = await addConversation("us", workspace.workspaceId, "Linked renewal");
  const unlinked = await addConversation("us", workspace.workspaceId, "Secret merger talk");
  await expectStatus(200, `/inbox/conversations/${linked}`, {
    method: "PATCH",
    key: workspace.key,
    json: { linkedRecordIds: [person] },
  });
  return { workspace, person, linked, unlinked };
}

const createTask = (key: string, recordId: string, body: Record<string, unknown>, status: number) =>
  expectStatus<{ task: Task } & ErrorBody>(status, `/records/${recordId}/tasks`, { method: "POST", key, json: body });

describe("tasks and record-scoped inbox access", () => {
  for (const inboxAccess of ["record_read", "record_reply"] as const) {
    it(`${inboxAccess}: linking a conversation outside the member's access is the 404 of an unknown id`, async () => {
      const { workspace, person, linked, unlinked } = await scene();
      const reader = await addInboxMember(workspace, "member", inboxAccess);
      const refused = await createTask(reader.key, person, { title: "x", conversationId: unlinked }, 404);
      const unknown = await createTask(reader.key, person, { title: "x", conversationId: "conv_unknown0000000" }, 404);
      expect(refused.error.code).toBe("not_found");
      expect({ ...refused.error, requestId: "" }).toEqual({ ...unknown.error, requestId: "" });
      const { task } = await createTask(reader.key, person, { title: "ok", conversationId: linked }, 201);
      expect(task.linkedResources).toEqual([
        { resourceType: "conversation", resourceId: linked, label: "Linked renewal", channel: "email" },
      ]);
    });
  }

  it("a task linked to an unlinked conversation shows the link only to readers who may see the conversation", async () => {
    const { workspace, person, linked, unlinked } = await scene();
    const reader = await addInboxMember(workspace, "member", "record_read");
    const full = await addInboxMember(workspace, "member", "all");
    const hidden = (await createTask(workspace.key, person, { title: "merger", conversationId: unlinked }, 201)).task;
    const shown = (await createTask(workspace.key, person, { title: "renewal", conversationId: linked }, 201)).task;
    expect(hidden.linkedResources[0]?.label).toBe("Secret merger talk");

    const readsOf = async (key: string) => {
      const one = (await expectStatus<{ task: Task }>(200, `/tasks/${hidden.id}`, { key })).task;
      const ofRecord = await expectStatus<Page<Task>>(200, `/records/${person}/tasks?limit=100`, { key });
      const ofWorkspace = await expectStatus<Page<Task>>(200, `/tasks?workspaceId=${workspace.workspaceId}&limit=100`, { key });
      const updated = (
        await expectStatus<{ task: Task }>(200, `/tasks/${hidden.id}`, { method: "PATCH", key, json: { status: "in_progress" } })
      ).task;
      return [one, ...ofRecord.data, ...ofWorkspace.data, updated];
    };

    for (const task of await readsOf(reader.key)) {
      const expected = task.id === shown.id ? shown.linkedResources : [];
      expect(task.linkedResources, task.id).toEqual(expected);
      expect(JSON.stringify(task)).not.toContain("Secret merger talk");
      expect(JSON.stringify(task)).not.toContain(unlinked);
    }
    for (const key of [full.key, workspace.key]) {
      for (const task of await readsOf(key)) {
        expect(task.linkedResources, task.id).toEqual(task.id === shown.id ? shown.linkedResources : hidden.linkedResources);
      }
    }

    // Once the conversation is linked to a record, the record-scoped reader sees it, and the link.
    await expectStatus(200, `/inbox/conversations/${unlinked}`, {
      method: "PATCH",
      key: workspace.key,
      json: { linkedRecordIds: [person] },
    });
    const now = (await expectStatus<{ task: Task }>(200, `/tasks/${hidden.id}`, { key: reader.key })).task;
    expect(now.linkedResources).toEqual(hidden.linkedResources);
  });
});
