import { insertRowsAsJson, newId, regional } from "@crm/db";
import { and, eq, inArray } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { pruneEvents, writeOrder } from "../workers/api/src/domain/events-feed/stored-events";
import { createObjectType, type ErrorBody, expectStatus, unique } from "./crm";
import { createKey, createOrganization, regionDb } from "./fixtures";
import { addInboxMember, addPerson } from "./inbox";
import { deliver, mailWorkspace, rawMessage } from "./mail";

interface Event {
  id: string;
  type: string;
  createdAt: number;
  workspaceId: string;
  objectTypeId?: string;
  data: { id?: string; conversationId?: string };
}
interface Page {
  data: Event[];
  pagination: { cursor: string | null; hasMore: boolean };
}

const dayMs = 24 * 60 * 60 * 1000;
const { eventOutbox } = regional;

async function place() {
  const organization = await createOrganization({ workspaceCount: 1 });
  const workspaceId = organization.workspaceIds[0] as string;
  const objectType = await createObjectType(organization.key, workspaceId);
  return { ...organization, workspaceId, objectTypeId: objectType.id };
}

const createRecord = (key: string, objectTypeId: string, name = `Vendor ${unique()}`) =>
  expectStatus<{ record: { id: string } }>(201, "/records", { method: "POST", key, json: { objectTypeId, fields: { name } } });

const eventsPage = (key: string, query: string) => expectStatus<Page>(200, `/events?${query}`, { key });

/** Every event of the query, page by page from its start; `between` runs before each next page. */
async function walk(key: string, query: string, between: () => Promise<unknown> = async () => {}): Promise<Event[]> {
  const events: Event[] = [];
  let page = await eventsPage(key, query);
  events.push(...page.data);
  while (page.pagination.cursor) {
    await between();
    page = await eventsPage(key, `${query}&cursor=${encodeURIComponent(page.pagination.cursor)}`);
    events.push(...page.data);
  }
  return events;
}

/**
 * The workspace's events as the outbox holds them, in write order: the feed's own order. (Not by id:
 * two events written in the same millisecond have ids in random order.)
 */
const stored = async (workspaceId: string) =>
  (
    await regionDb("us")
      .select({ id: eventOutbox.id, type: eventOutbox.type })
      .from(eventOutbox)
      .where(eq(eventOutbox.workspaceId, workspaceId))
      .orderBy(writeOrder)
  ).filter((row) => row.type !== "webhook.test");

describe("GET /events", () => {
  it("pages to the end while events are written: none missed, none twice, in write order; then catches up after the last id", async () => {
    const workspace = await place();
    for (let i = 0; i < 12; i++) await createRecord(workspace.key, workspace.objectTypeId);
    let writes = 0;
    const seen = await walk(workspace.key, `workspaceId=${workspace.workspaceId}&limit=5`, async () => {
      // Two writes at once between pages, while the walk goes on.
      writes += 2;
      await Promise.all([
        createRecord(workspace.key, workspace.objectTypeId),
        createRecord(workspace.key, workspace.objectTypeId),
      ]);
    });
    expect(writes).toBeGreaterThan(0);
    const ids = seen.map((event) => event.id);
    expect(new Set(ids).size).toBe(ids.length);
    const last = ids.at(-1) as string;
    // The last page's cursor is null: the client continues after the last event it saw.
    const rest = await walk(workspace.key, `workspaceId=${workspace.workspaceId}&limit=5&afterEventId=${last}`);
    const all = [...ids, ...rest.map((event) => event.id)];
    expect(all).toEqual((await stored(workspace.workspaceId)).map((row) => row.id));
    expect(all.length).toBe(12 + writes);
    expect(seen[0]).toMatchObject({
      type: "record.created",
      workspaceId: workspace.workspaceId,
      objectTypeId: workspace.objectTypeId,
    });
  }, 30_000);

  it("serves an event exactly as the webhook payload the outbox stored, alone and in the list", async () => {
    const workspace = await place();
    const { record } = await createRecord(workspace.key, workspace.objectTypeId);
    const [row] = await regionDb("us").select().from(eventOutbox).where(eq(eventOutbox.workspaceId, workspace.workspaceId));
    const payload = JSON.parse(row?.payload as string) as Event;
    expect(payload.data.id).toBe(record.id);
    const { event } = await expectStatus<{ event: Event }>(200, `/events/${payload.id}`, { key: workspace.key });
    expect(event).toEqual(payload);
    expect((await eventsPage(workspace.key, `workspaceId=${workspace.workspaceId}`)).data).toEqual([payload]);
    const other = await place();
    const foreign = await expectStatus<ErrorBody>(404, `/events/${payload.id}`, { key: other.key });
    expect(foreign.error.code).toBe("not_found");
  });

  it("filters by types and object type, and starts at sinceMs", async () => {
    const workspace = await place();
    const second = await createObjectType(workspace.key, workspace.workspaceId);
    const { record } = await createRecord(workspace.key, workspace.objectTypeId);
    await createRecord(workspace.key, second.id);
    await expectStatus(200, `/records/${record.id}`, { method: "DELETE", key: workspace.key });
    const base = `workspaceId=${workspace.workspaceId}`;
    const types = (events: Event[]) => events.map((event) => [event.type, event.objectTypeId]);
    expect(types(await walk(workspace.key, `${base}&types=record.deleted`))).toEqual([
      ["record.deleted", workspace.objectTypeId],
    ]);
    expect(types(await walk(workspace.key, `${base}&types=record.created,record.deleted&objectTypeId=${second.id}`))).toEqual([
      ["record.created", second.id],
    ]);
    expect(types(await walk(workspace.key, `${base}&objectTypeId=${workspace.objectTypeId}`))).toEqual([
      ["record.created", workspace.objectTypeId],
      ["record.deleted", workspace.objectTypeId],
    ]);
    const all = await walk(workspace.key, base);
    const since = (all[2] as Event).createdAt;
    expect((await walk(workspace.key, `${base}&sinceMs=${since}`)).every((event) => event.createdAt >= since)).toBe(true);
    expect((await walk(workspace.key, `${base}&sinceMs=${since}`)).map((event) => event.id)).toContain(all[2]?.id);
    expect(await walk(workspace.key, `${base}&sinceMs=${Date.now() + dayMs}`)).toEqual([]);
  });

  it("refuses malformed input with 400", async () => {
    const workspace = await place();
    const base = `workspaceId=${workspace.workspaceId}`;
    const { data } = await eventsPage(workspace.key, base);
    expect(data).toEqual([]);
    for (const query of [
      "",
      `${base}&types=record.exploded`,
      `${base}&types=`,
      `${base}&types=record.created,`,
      `${base}&objectTypeId=nope`,
      `${base}&sinceMs=${Date.now() - 31 * dayMs}`,
      `${base}&sinceMs=-1`,
      `${base}&sinceMs=1e3`,
      `${base}&sinceMs=${Date.now()}&afterEventId=evt_000000000`,
      `${base}&afterEventId=evt_000000000`,
      `${base}&limit=101`,
      `${base}&cursor=forged`,
      `${base}&unknown=1`,
    ]) {
      const response = await expectStatus<ErrorBody>(400, `/events?${query}`, { key: workspace.key });
      expect(["invalid_request", "invalid_cursor"], query).toContain(response.error.code);
    }
    await expectStatus<ErrorBody>(400, "/events/not-an-id", { key: workspace.key });
    await expectStatus<ErrorBody>(404, `/events/${newId("evt")}`, { key: workspace.key });
  });

  it("hides the events of conversations a record-scoped member may not see", async () => {
    const workspace = await mailWorkspace();
    const customer = `known-${unique()}@customer.example`;
    await addPerson(workspace.key, workspace.workspaceId, "Known Customer", customer);
    for (const from of [customer, `stranger-${unique()}@elsewhere.example`]) {
      const delivery = await deliver(
        rawMessage({ from, to: workspace.mailbox, subject: `From ${from}` }),
        workspace.mailbox,
        from,
      );
      expect(delivery.rejected).toBeNull();
    }
    const scoped = await addInboxMember(workspace, "member", "record_read");
    const base = `workspaceId=${workspace.workspaceId}&types=conversation.created,message.received`;
    const everything = await walk(workspace.key, base);
    expect(everything).toHaveLength(4);
    const linked = await regionDb("us")
      .select({ id: regional.conversations.id })
      .from(regional.conversations)
      .where(
        and(eq(regional.conversations.workspaceId, workspace.workspaceId), eq(regional.conversations.hasLinkedRecords, true)),
      );
    expect(linked).toHaveLength(1);
    const conversationOf = (event: Event) => (event.type === "conversation.created" ? event.data.id : event.data.conversationId);
    const visible = await walk(scoped.key, base);
    expect(visible.map((event) => event.type).sort()).toEqual(["conversation.created", "message.received"]);
    expect(visible.every((event) => conversationOf(event) === linked[0]?.id)).toBe(true);
    const hidden = everything.find((event) => conversationOf(event) !== linked[0]?.id) as Event;
    expect((await expectStatus<ErrorBody>(404, `/events/${hidden.id}`, { key: scoped.key })).error.code).toBe("not_found");
    // Without the scope: 403.
    const { key } = await createKey({ organizationId: workspace.organizationId, ownerId: scoped.userId, scopes: ["inbox:read"] });
    expect((await expectStatus<ErrorBody>(403, `/events?${base}`, { key })).error.code).toBe("insufficient_scope");
  });
});

describe("event retention", () => {
  it("prunes events queued more than 30 days ago, in bounded batches, by the clock it is given", async () => {
    const workspace = await place();
    const now = Date.now();
    const db = regionDb("us");
    const at = (ageDays: number, count: number) =>
      Array.from({ length: count }, () => {
        const createdAt = now - ageDays * dayMs;
        const id = newId("evt", createdAt);
        return {
          id,
          organizationId: workspace.organizationId,
          workspaceId: workspace.workspaceId,
          objectTypeId: null,
          type: "record.deleted",
          payload: JSON.stringify({ id, type: "record.deleted", createdAt, data: {} }),
          createdAt,
          queuedAt: createdAt + 1_000,
          claimedAt: createdAt,
        };
      });
    const oldest = at(45, 30);
    const older = at(33, 5);
    const recent = at(29, 2);
    await db.run(insertRowsAsJson(db, eventOutbox, [...oldest, ...older, ...recent]));
    const left = async () =>
      (await db.select({ id: eventOutbox.id }).from(eventOutbox).where(eq(eventOutbox.workspaceId, workspace.workspaceId)))
        .length;

    // Ten days ago by the injected clock, only the 45-day-old events were past 30 days: 2 batches of 10 take 20 of them.
    expect(await pruneEvents(db, now - 10 * dayMs, { batch: 10, batches: 2 })).toBe(20);
    expect(await left()).toBe(37 - 20);
    expect(await pruneEvents(db, now - 10 * dayMs, { batch: 10, batches: 2 })).toBe(10);
    expect(await left()).toBe(7);
    // Now the 33-day-old ones go too; the 29-day-old ones stay.
    expect(await pruneEvents(db, now, { batch: 10, batches: 2 })).toBeGreaterThanOrEqual(5);
    const remaining = await db
      .select({ id: eventOutbox.id })
      .from(eventOutbox)
      .where(
        inArray(
          eventOutbox.id,
          [...oldest, ...older, ...recent].map((row) => row.id),
        ),
      );
    expect(remaining.map((row) => row.id).sort()).toEqual(recent.map((row) => row.id).sort());
  });
});
