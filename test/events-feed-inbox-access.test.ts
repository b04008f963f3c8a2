import { describe, expect, it } from "vitest";
import { type ErrorBody, expectStatus, unique } from "./crm";
import { addInboxMember, addPerson } from "./inbox";
import { deliver, mailWorkspace, rawMessage } from "./mail";
import { rawToolCall, structured, toolError } from "./mcp";

/**
 * Reference rule 8 through the events feed (issue 38): a record-scoped member never learns of a
 * conversation linked to no record from an event either. A task event shows them the task as the
 * task routes do (without the hidden link and its subject); an event of the hidden conversation
 * itself does not exist for them, so naming it as `afterEventId` is the 400 of an unknown id.
 */

interface Link {
  resourceType: string;
  resourceId: string;
  label: string;
  channel: string;
}
interface Event {
  id: string;
  type: string;
  data: { id?: string; conversationId?: string; linkedResources?: Link[] };
}
interface Page {
  data: Event[];
  pagination: { cursor: string | null };
}

const secretSubject = `Secret merger talk ${unique()}`;

/** A workspace with one conversation linked to a record (by its sender) and one linked to none, a task on each. */
async function scene() {
  const workspace = await mailWorkspace();
  const customer = `known-${unique()}@customer.example`;
  const person = await addPerson(workspace.key, workspace.workspaceId, "Known Customer", customer);
  const stranger = `stranger-${unique()}@elsewhere.example`;
  for (const [from, subject] of [
    [customer, "Linked renewal"],
    [stranger, secretSubject],
  ] as const) {
    const delivery = await deliver(rawMessage({ from, to: workspace.mailbox, subject }), workspace.mailbox, from);
    expect(delivery.rejected).toBeNull();
  }
  const conversations = await expectStatus<{ data: { id: string; subject: string; hasLinkedRecords: boolean }[] }>(
    200,
    `/inbox/conversations?workspaceId=${workspace.workspaceId}`,
    { key: workspace.key },
  );
  const idOf = (subject: string) => conversations.data.find((conversation) => conversation.subject === subject)?.id as string;
  const linked = idOf("Linked renewal");
  const unlinked = idOf(secretSubject);
  const task = async (title: string, conversationId: string) =>
    (
      await expectStatus<{ task: { id: string; linkedResources: Link[] } }>(201, `/records/${person}/tasks`, {
        method: "POST",
        key: workspace.key,
        json: { title, conversationId },
      })
    ).task;
  const hidden = await task("merger", unlinked);
  const shown = await task("renewal", linked);
  // A task.updated of the hidden task, as well as its task.created.
  await expectStatus(200, `/tasks/${hidden.id}`, { method: "PATCH", key: workspace.key, json: { status: "in_progress" } });
  const reader = await addInboxMember(workspace, "member", "record_read");
  const full = await addInboxMember(workspace, "member", "all");
  return { workspace, linked, unlinked, hidden, shown, reader, full };
}

const taskTypes = "task.created,task.updated";

/** Every event of the query through REST, page by page. */
async function restEvents(key: string, query: string): Promise<Event[]> {
  const events: Event[] = [];
  let cursor: string | null = null;
  do {
    const page: Page = await expectStatus<Page>(200, `/events?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, {
      key,
    });
    events.push(...page.data);
    cursor = page.pagination.cursor;
  } while (cursor);
  return events;
}

/** The same through the MCP tool `events_list`. */
async function mcpEvents(key: string, workspaceId: string): Promise<Event[]> {
  const events: Event[] = [];
  let cursor: string | null = null;
  do {
    const page: Page = structured<Page>(
      await rawToolCall(key, "events_list", { workspaceId, types: taskTypes, limit: 2, ...(cursor ? { cursor } : {}) }),
    );
    events.push(...page.data);
    cursor = page.pagination.cursor;
  } while (cursor);
  return events;
}

describe("events feed and record-scoped inbox access", () => {
  it("task events show a record-scoped member no link to a conversation outside their access, through REST and MCP", async () => {
    const { workspace, hidden, shown, unlinked, reader, full } = await scene();
    const query = `workspaceId=${workspace.workspaceId}&types=${taskTypes}&limit=2`;
    const linksOf = (events: Event[]) => events.map((event) => [event.type, event.data.id, event.data.linkedResources]);
    const expectedFor = (hiddenLinks: Link[]) => [
      ["task.created", hidden.id, hiddenLinks],
      ["task.created", shown.id, shown.linkedResources],
      ["task.updated", hidden.id, hiddenLinks],
    ];

    const asReader = [await restEvents(reader.key, query), await mcpEvents(reader.key, workspace.workspaceId)];
    for (const events of asReader) {
      expect(linksOf(events)).toEqual(expectedFor([]));
      expect(JSON.stringify(events)).not.toContain(secretSubject);
      expect(JSON.stringify(events)).not.toContain(unlinked);
    }
    const one = await expectStatus<{ event: Event }>(200, `/events/${asReader[0]?.[0]?.id}`, { key: reader.key });
    expect(one.event.data.linkedResources).toEqual([]);
    expect(JSON.stringify(one)).not.toContain(secretSubject);

    // Readers with the whole inbox (the owner, a member with `all`) still see the link and its label.
    expect(hidden.linkedResources).toEqual([
      { resourceType: "conversation", resourceId: unlinked, label: secretSubject, channel: "email" },
    ]);
    for (const key of [workspace.key, full.key]) {
      expect(linksOf(await restEvents(key, query))).toEqual(expectedFor(hidden.linkedResources));
      expect(linksOf(await mcpEvents(key, workspace.workspaceId))).toEqual(expectedFor(hidden.linkedResources));
    }
  }, 30_000);

  it("afterEventId naming an event a record-scoped member may not see answers as an unknown id, through REST and MCP", async () => {
    const { workspace, unlinked, linked, reader, full } = await scene();
    const conversationEvents = await restEvents(
      workspace.key,
      `workspaceId=${workspace.workspaceId}&types=conversation.created,message.received`,
    );
    const conversationOf = (event: Event) => (event.type === "conversation.created" ? event.data.id : event.data.conversationId);
    const hiddenEvent = conversationEvents.find((event) => conversationOf(event) === unlinked) as Event;
    const shownEvent = conversationEvents.find((event) => conversationOf(event) === linked) as Event;
    expect(hiddenEvent).toBeDefined();
    expect(shownEvent).toBeDefined();
    const base = `workspaceId=${workspace.workspaceId}`;
    const unknown = await expectStatus<ErrorBody>(400, `/events?${base}&afterEventId=evt_000000000`, { key: reader.key });
    const hidden = await expectStatus<ErrorBody>(400, `/events?${base}&afterEventId=${hiddenEvent.id}`, { key: reader.key });
    expect({ ...hidden.error, requestId: "" }).toEqual({ ...unknown.error, requestId: "" });
    // MCP names the argument, not the query parameter, in `details`: its two answers match each other.
    const viaMcp = async (afterEventId: string) => {
      const { error } = toolError(
        await rawToolCall(reader.key, "events_list", { workspaceId: workspace.workspaceId, afterEventId }),
      );
      return { ...error, requestId: "" };
    };
    const hiddenViaMcp = await viaMcp(hiddenEvent.id);
    expect(hiddenViaMcp.code).toBe("invalid_request");
    expect(hiddenViaMcp).toEqual(await viaMcp("evt_000000000"));

    // An event the reader sees still starts the page after it; a reader with the whole inbox starts after either.
    await expectStatus<Page>(200, `/events?${base}&afterEventId=${shownEvent.id}`, { key: reader.key });
    for (const key of [full.key, workspace.key])
      await expectStatus<Page>(200, `/events?${base}&afterEventId=${hiddenEvent.id}`, { key });
  }, 30_000);
});
