import { env } from "cloudflare:test";
import { control, regional } from "@crm/db";
import { and, eq, inArray } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { storeMessage } from "../workers/api/src/domain/inbox/store-message";
import { consoleSessionHeaders } from "./console-browser";
import { unique } from "./crm";
import { createMember, createOrganization } from "./fixtures";
import { addInboxMember, addPerson, crmWorkspace, inboundMessage, inboxWorkspace, nextArrival } from "./inbox";
import { ascendingBy, type Compare, descendingBy, field, type Item, type Scenario, type Variant } from "./list-walk";
import { connect, deliver, expectReceived, inboundPath } from "./meetings";
import { receiverPath, receiverUrl } from "./receiver";
import { call, eventually } from "./stack";

/**
 * How the list walk (test/every-list-pages.test.ts) gets data for each list operation: a fresh
 * organization of its own per operation, filled through the public API with more than two pages
 * of two for every filter value. Keyed by operation id; an operation without an entry fails the walk.
 */

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

async function send<T>(headers: Record<string, string>, method: string, path: string, json?: unknown): Promise<T> {
  const response = await call(path, { method, headers, ...(json === undefined ? {} : { json }) });
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}
const post = (headers: Record<string, string>, path: string, json?: unknown) => send<unknown>(headers, "POST", path, json);
/** POSTs and answers the id of the resource the answer holds under `name` (`{ record }`, `{ tag }`, `{ view }`). */
const created = async (name: string, headers: Record<string, string>, path: string, json: unknown) =>
  ((await send<Record<string, { id: string }>>(headers, "POST", path, json))[name] as { id: string }).id;

const one = (value: unknown): Variant[] => [{ value }];
const id = field<string>("id");
const createdAt = field<number>("createdAt");
const oldestFirst = ascendingBy(createdAt, id);
const byId = ascendingBy(id);
const newestMessageFirst = descendingBy(field("lastMessageAtMs"), id);
const nameOf = (item: Item) => (item.fields as { name: string }).name;
const times = async <T>(count: number, make: (index: number) => Promise<T>) => {
  const made: T[] = [];
  for (let index = 0; index < count; index++) made.push(await make(index));
  return made;
};

/**
 * A fresh workspace of records: people named "Walker <n>", created one after the other, half of them
 * with a nickname, plus two others. Names and nicknames are out of creation order, so that a sort by
 * either is not the creation order, and unset nicknames are where a sort puts what is unset.
 */
async function recordsWorkspace() {
  const workspace = await crmWorkspace();
  const headers = bearer(workspace.key);
  const fields = await send<{ data: { id: string; slug: string }[] }>(
    headers,
    "GET",
    `/crm/objects/${workspace.peopleId}/fields?limit=100`,
  );
  const nameFieldId = fields.data.find((candidate) => candidate.slug === "name")?.id as string;
  const { field: nickname } = await send<{ field: { id: string; slug: string } }>(
    headers,
    "POST",
    `/crm/objects/${workspace.peopleId}/fields`,
    { name: "Nickname", type: "text" },
  );
  const nicknames = ["zed", undefined, "amy", undefined, "kim", undefined];
  const people = await times(6, (index) =>
    created("record", headers, "/records", {
      objectTypeId: workspace.peopleId,
      fields: { name: `Walker ${"FBDAEC"[index]}`, ...(nicknames[index] ? { [nickname.slug]: nicknames[index] } : {}) },
    }),
  );
  for (const name of ["Other one", "Other two"])
    await post(headers, "/records", { objectTypeId: workspace.peopleId, fields: { name } });
  /** The sorts of the saved-view language in `direction`, each with the order it answers in. */
  const sortsIn = (direction: string) =>
    [
      { fieldDefinitionId: nameFieldId, sortValue: nameOf },
      {
        fieldDefinitionId: nickname.id,
        sortValue: (item: Item) => (item.fields as Record<string, string | null>)[nickname.slug],
      },
    ].map(({ fieldDefinitionId, sortValue }) => ({
      sorts: [{ fieldDefinitionId, direction }],
      // Unset values first ascending, last descending; ties by id in the sort's direction.
      order: sortedBy(
        direction,
        (item) => (sortValue(item) == null ? 0 : 1),
        (item) => sortValue(item) ?? "",
        id,
      ),
    }));
  return { ...workspace, headers, nameFieldId, people, sortsIn };
}

const sortedBy = (direction: string, ...keys: ((item: Item) => number | string)[]): Compare =>
  direction === "desc" ? descendingBy(...keys) : ascendingBy(...keys);

/** Fifteen tasks on one record, five of each status; an assignee on five, a due date on five. */
async function tasksWorkspace() {
  const workspace = await recordsWorkspace();
  const member = await addInboxMember(workspace, "member", "all");
  const dueAt = Date.now() + 86_400_000;
  const recordId = workspace.people[0] as string;
  const statuses = ["todo", "in_progress", "done"];
  await times(15, (index) =>
    post(workspace.headers, `/records/${recordId}/tasks`, {
      title: `Task ${index}`,
      status: statuses[index % 3],
      ...(index < 5 ? { assigneeUserIds: [member.userId] } : {}),
      ...(index >= 5 && index < 10 ? { dueAt } : {}),
    }),
  );
  return { ...workspace, recordId, member, dueAt };
}

/**
 * Ten conversations whose subjects share a word: five from a person's address (linked to the
 * record), five from strangers; every other one closed, the open ones assigned and tagged (as the
 * `assigned_to_me` view wants them). Each arrives after the previous one, so the newest-message
 * order is not the id order by chance.
 */
async function conversationsWorkspace() {
  const workspace = await inboxWorkspace();
  const headers = bearer(workspace.key);
  const personEmail = `walker-${unique()}@customer.example`;
  const personId = await addPerson(workspace.key, workspace.workspaceId, "Walker Person", personEmail);
  const member = await addInboxMember(workspace, "member", "all");
  const tagId = await created("tag", headers, "/inbox/tags", {
    workspaceId: workspace.workspaceId,
    name: "Walked",
    color: "#22c55e",
  });
  const conversations = await times(10, async (index) => {
    await nextArrival();
    const from = index < 5 ? personEmail : `stranger-${index}-${unique()}@outside.example`;
    const stored = await storeMessage(
      workspace.db,
      inboundMessage(workspace.mailbox, { subject: `Walkabout question ${index}`, from: { email: from, name: "Sender" } }),
    );
    return stored.conversationId;
  });
  for (const [index, conversationId] of conversations.entries())
    await send(headers, "PATCH", `/inbox/conversations/${conversationId}`, {
      isClosed: index % 2 === 0,
      ...(index % 2 === 1 ? { assigneeUserIds: [member.userId], tagIds: [tagId] } : {}),
    });
  return { ...workspace, headers, personId, member, tagId, conversations };
}

/** One conversation with five messages, each arriving after the previous one. */
async function conversationWithMessages() {
  const workspace = await inboxWorkspace();
  const first = await storeMessage(workspace.db, inboundMessage(workspace.mailbox, { subject: "Long thread" }));
  for (let index = 0; index < 4; index++) {
    await nextArrival();
    await storeMessage(
      workspace.db,
      inboundMessage(workspace.mailbox, { subject: "Re: Long thread", conversationId: first.conversationId }),
    );
  }
  return { ...workspace, headers: bearer(workspace.key), conversationId: first.conversationId };
}

/** A webhook subscription that will not be disabled by its receiver (it answers 200). */
const subscribe = (headers: Record<string, string>, workspaceId: string) =>
  created("webhook", headers, "/webhooks", {
    workspaceId,
    url: receiverUrl(receiverPath()),
    eventTypes: ["record.created"],
  });

type Build = () => Promise<Scenario>;

export const scenarios: Record<string, Build> = {
  async listWorkspaces() {
    const organization = await createOrganization({ workspaceCount: 5 });
    return { path: "/workspaces", headers: bearer(organization.key), values: {}, order: oldestFirst };
  },

  async listWorkspaceMembers() {
    const workspace = await inboxWorkspace();
    await times(5, () =>
      createMember({
        organizationId: workspace.organizationId,
        region: "us",
        workspaceId: workspace.workspaceId,
        role: "member",
      }),
    );
    return { path: `/workspaces/${workspace.workspaceId}/members`, headers: bearer(workspace.key), values: {}, order: byId };
  },

  async listFields() {
    const workspace = await crmWorkspace();
    const headers = bearer(workspace.key);
    await times(3, (index) =>
      post(headers, `/crm/objects/${workspace.peopleId}/fields`, { name: `Extra ${index}`, type: "text" }),
    );
    return {
      path: `/crm/objects/${workspace.peopleId}/fields`,
      headers,
      values: {},
      order: ascendingBy(field("order"), id),
    };
  },

  async listViews() {
    const workspace = await crmWorkspace();
    const headers = bearer(workspace.key);
    await times(5, (index) => post(headers, `/crm/objects/${workspace.peopleId}/views`, { name: `View ${index}` }));
    return { path: `/crm/objects/${workspace.peopleId}/views`, headers, values: {}, order: ascendingBy(field("order"), id) };
  },

  async listRecords() {
    const workspace = await recordsWorkspace();
    const views: Variant[] = [];
    for (const direction of ["asc", "desc"])
      for (const { sorts, order } of workspace.sortsIn(direction)) {
        const viewId = await created("view", workspace.headers, `/crm/objects/${workspace.peopleId}/views`, {
          name: `Sorted ${views.length}`,
          config: { sorts },
        });
        views.push({ value: viewId, order });
      }
    return {
      path: "/records",
      headers: workspace.headers,
      values: { objectTypeId: () => one(workspace.peopleId), viewId: () => views },
      order: oldestFirst,
    };
  },

  async searchRecords() {
    const workspace = await recordsWorkspace();
    await post(workspace.headers, "/records", { objectTypeId: workspace.companiesId, fields: { name: "Walker Holdings" } });
    return {
      path: "/records/search",
      headers: workspace.headers,
      values: {
        workspaceId: () => one(workspace.workspaceId),
        q: () => one("walker"),
        objectTypeIds: () => one(workspace.peopleId),
      },
      // Best match first: no key of the items shows it, so the pages must join up to the one large page.
      order: null,
      idOf: (hit) => (hit.record as { id: string }).id,
    };
  },

  async queryRecords() {
    const workspace = await recordsWorkspace();
    return {
      path: "/records/query",
      headers: workspace.headers,
      values: {
        objectTypeId: () => one(workspace.peopleId),
        filter: () =>
          one({ op: "and", conditions: [{ fieldDefinitionId: workspace.nameFieldId, operator: "contains", value: "Walker" }] }),
        sorts: (direction) => workspace.sortsIn(direction as string).map(({ sorts, order }) => ({ value: sorts, order })),
      },
      order: oldestFirst,
    };
  },

  async listRecordTasks() {
    const workspace = await tasksWorkspace();
    return { path: `/records/${workspace.recordId}/tasks`, headers: workspace.headers, values: {}, order: oldestFirst };
  },

  async listTasks() {
    const workspace = await tasksWorkspace();
    return {
      path: "/tasks",
      headers: workspace.headers,
      values: {
        workspaceId: () => one(workspace.workspaceId),
        assigneeUserId: () => one(workspace.member.userId),
        dueBeforeMs: () => one(workspace.dueAt + 1),
      },
      order: oldestFirst,
    };
  },

  async listNotes() {
    const workspace = await recordsWorkspace();
    const recordId = workspace.people[0] as string;
    await times(5, (index) => post(workspace.headers, `/records/${recordId}/notes`, { title: `Note ${index}` }));
    return { path: `/records/${recordId}/notes`, headers: workspace.headers, values: {}, order: oldestFirst };
  },

  async listConversations() {
    const workspace = await conversationsWorkspace();
    // As the member the conversations are assigned to, so that the `assigned_to_me` view holds them.
    const headers = bearer(workspace.member.key);
    const sortedViews = await Promise.all(
      ["lastMessageAtMs", "createdAt"].flatMap((sortField) =>
        ["asc", "desc"].map(async (direction): Promise<Variant> => {
          const viewId = await created("view", headers, "/inbox/views", {
            workspaceId: workspace.workspaceId,
            name: `By ${sortField} ${direction}`,
            config: { filter: {}, sorts: [{ field: sortField, direction }] },
          });
          const keys = [field<number>(sortField), id];
          return { value: viewId, order: direction === "asc" ? ascendingBy(...keys) : descendingBy(...keys) };
        }),
      ),
    );
    // The system views (`inbox`, `assigned_to_me`, `closed`) filter and keep the list's own order.
    const views = await send<{ data: { id: string; isSystem: boolean }[] }>(
      headers,
      "GET",
      `/inbox/views?workspaceId=${workspace.workspaceId}&limit=100`,
    );
    const systemViews = views.data.filter((view) => view.isSystem).map((view) => ({ value: view.id }));
    return {
      path: "/inbox/conversations",
      headers: headers,
      values: {
        workspaceId: () => one(workspace.workspaceId),
        viewId: () => [...systemViews, ...sortedViews],
        q: () => one("walkabout"),
        assigneeUserId: () => one(workspace.member.userId),
        tagIds: () => one(workspace.tagId),
      },
      order: newestMessageFirst,
    };
  },

  async listRecordConversations() {
    const workspace = await conversationsWorkspace();
    return {
      path: `/records/${workspace.personId}/conversations`,
      headers: workspace.headers,
      values: {},
      order: newestMessageFirst,
    };
  },

  async listConversationMessages() {
    const workspace = await conversationWithMessages();
    return {
      path: `/inbox/conversations/${workspace.conversationId}/messages`,
      headers: workspace.headers,
      values: {},
      order: oldestFirst,
    };
  },

  async listComments() {
    const workspace = await conversationWithMessages();
    const path = `/inbox/conversations/${workspace.conversationId}/comments`;
    await times(5, (index) => post(workspace.headers, path, { text: `Comment ${index}` }));
    return { path, headers: workspace.headers, values: {}, order: oldestFirst };
  },

  async listTags() {
    const workspace = await inboxWorkspace();
    const headers = bearer(workspace.key);
    for (const name of ["delta", "Bravo", "echo", "Alpha", "charlie"])
      await post(headers, "/inbox/tags", { workspaceId: workspace.workspaceId, name, color: "#22c55e" });
    return {
      path: "/inbox/tags",
      headers,
      values: { workspaceId: () => one(workspace.workspaceId) },
      order: ascendingBy((tag) => (tag.name as string).toLowerCase(), id),
    };
  },

  async listComposeDrafts() {
    const workspace = await inboxWorkspace();
    const headers = bearer(workspace.key);
    await times(5, (index) =>
      post(headers, "/inbox/drafts", {
        workspaceId: workspace.workspaceId,
        mailbox: workspace.mailbox,
        subject: `Draft ${index}`,
      }),
    );
    return { path: "/inbox/drafts", headers, values: { workspaceId: () => one(workspace.workspaceId) }, order: oldestFirst };
  },

  async listInboxViews() {
    const workspace = await inboxWorkspace();
    const headers = bearer(workspace.key);
    await times(5, (index) => post(headers, "/inbox/views", { workspaceId: workspace.workspaceId, name: `View ${index}` }));
    const systemViews = ["inbox", "assigned_to_me", "closed"];
    const systemRank = (view: Item) => {
      const rank = systemViews.indexOf(view.systemViewKey as string);
      return rank === -1 ? systemViews.length : rank;
    };
    return {
      path: "/inbox/views",
      headers,
      values: { workspaceId: () => one(workspace.workspaceId) },
      order: ascendingBy(systemRank, createdAt, id),
    };
  },

  async listEventTypes() {
    const organization = await createOrganization();
    return {
      path: "/webhooks/event-types",
      headers: bearer(organization.key),
      values: {},
      // In the catalogue's own order, which no key of the items shows.
      order: null,
      idOf: (eventType) => eventType.type as string,
      fixedSize: true,
    };
  },

  async listWebhooks() {
    const workspace = await inboxWorkspace();
    const headers = bearer(workspace.key);
    await times(5, () => subscribe(headers, workspace.workspaceId));
    return { path: "/webhooks", headers, values: { workspaceId: () => one(workspace.workspaceId) }, order: oldestFirst };
  },

  async listWebhookDeliveries() {
    const workspace = await inboxWorkspace();
    const headers = bearer(workspace.key);
    const webhookId = await subscribe(headers, workspace.workspaceId);
    await times(5, () => post(headers, `/webhooks/${webhookId}/test`));
    // Attempts are listed once their queue message is consumed, and a slow answer is tried again:
    // the walk reads the attempts once every delivery is settled, so none is added while it pages.
    await eventually(
      () =>
        send<{ statistics: { delivered: number; failed: number; pending: number } }>(
          headers,
          "GET",
          `/webhooks/${webhookId}/deliveries?limit=100`,
        ),
      ({ statistics }) => statistics.pending === 0 && statistics.delivered + statistics.failed === 5,
      { timeoutMs: 30_000, everyMs: 250 },
    );
    return {
      path: `/webhooks/${webhookId}/deliveries`,
      headers,
      values: {},
      order: descendingBy(createdAt),
      idOf: (delivery) => `${delivery.deliveryId} ${delivery.attempt}`,
    };
  },

  async listEvents() {
    const workspace = await crmWorkspace();
    const headers = bearer(workspace.key);
    const sinceMs = Date.now();
    for (const objectTypeId of [workspace.peopleId, workspace.companiesId])
      await times(6, (index) => post(headers, "/records", { objectTypeId, fields: { name: `Eventful ${index}` } }));
    await times(6, (index) =>
      post(headers, "/inbox/tags", { workspaceId: workspace.workspaceId, name: `Event tag ${index}`, color: "#22c55e" }),
    );
    // Events are written with the change and listed once the outbox has handed them over.
    const events = await eventually(
      () =>
        send<{ data: { id: string; type: string }[] }>(headers, "GET", `/events?workspaceId=${workspace.workspaceId}&limit=100`),
      (page) => page.data.filter((event) => event.type === "record.created").length === 12,
    );
    return {
      path: "/events",
      headers,
      values: {
        workspaceId: () => one(workspace.workspaceId),
        types: () => one("record.created"),
        objectTypeId: () => one(workspace.peopleId),
        sinceMs: () => one(sinceMs),
        afterEventId: () => one(events.data[0]?.id),
      },
      // The order they were written in, which no key of the items shows.
      order: null,
    };
  },

  async listMeetings() {
    const { workspaceId, key, peopleId, db } = await crmWorkspace();
    const headers = bearer(key);
    const { connection, secret } = await connect(key, workspaceId);
    const email = `guest-${unique()}@guests.example`;
    const recordId = await created("record", headers, "/records", { objectTypeId: peopleId, fields: { name: "Guest", email } });
    const base = Date.now();
    // Five meetings of each state; starts spread out and two of them tied, so the order is checked past a tie.
    const states = ["active", "cancelled", "deleted"];
    const startOf = (index: number) => base + (index === 4 ? 3 : index) * 60_000;
    for (let index = 0; index < 15; index++) {
      const meetingId = `walk-${index}`;
      const details = { meetingId, title: `Meeting ${index}`, startTimeMs: startOf(index), attendees: [{ email }] };
      await expectReceived(
        await deliver(inboundPath(connection), secret, { type: "meeting.scheduled", occurredAt: base, data: details }),
      );
      if (states[index % 3] === "cancelled")
        await expectReceived(
          await deliver(inboundPath(connection), secret, { type: "meeting.cancelled", occurredAt: base + 1, data: details }),
        );
    }
    // No provider event marks a meeting deleted (issue 38: reported), yet the list filters on it:
    // the state is written where a provider's deletion would write it.
    await db
      .update(regional.meetings)
      .set({ eventState: "deleted" })
      .where(
        and(
          eq(regional.meetings.workspaceId, workspaceId),
          inArray(
            regional.meetings.externalId,
            [2, 5, 8, 11, 14].map((index) => `walk-${index}`),
          ),
        ),
      );
    return {
      path: "/meetings",
      headers,
      values: {
        workspaceId: () => one(workspaceId),
        startAfterMs: () => one(base - 1),
        startBeforeMs: () => one(base + 20 * 60_000),
        recordId: () => one(recordId),
      },
      order: descendingBy(field("startTimeMs"), id),
    };
  },

  async listConnections() {
    const organization = await createOrganization({ workspaceCount: 1 });
    const workspaceId = organization.workspaceIds[0] as string;
    await times(5, (index) => connect(organization.key, workspaceId, "meeting_notes", `Notetaker ${index}`));
    return {
      path: "/integrations/connections",
      headers: bearer(organization.key),
      values: { workspaceId: () => one(workspaceId) },
      order: oldestFirst,
    };
  },

  async getUsage() {
    const organization = await createOrganization();
    const headers = bearer(organization.key);
    const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
    const routes = ["GET /crm/objects", "GET /inbox/conversations", "POST /records"];
    await drizzle(env.CONTROL_DB)
      .insert(control.tokenUsage)
      .values(
        [3, 2, 1].flatMap((daysAgo) =>
          routes.map((route) => ({
            organizationId: organization.organizationId,
            day: day(daysAgo),
            route,
            requests: 2,
            costUnits: 40,
          })),
        ),
      );
    // The walk's own reads are charged to today's `GET /usage`: it exists before the walk, so the walk reads a fixed set of entries.
    await eventually(
      () => send<{ data: { route: string }[] }>(headers, "GET", "/usage?limit=100"),
      (report) => report.data.some((entry) => entry.route === "GET /usage"),
    );
    return {
      path: "/usage",
      headers,
      values: { from: () => one(day(2)), to: () => one(day(2)) },
      order: ascendingBy(field("date"), field("route")),
      idOf: (entry) => `${entry.date} ${entry.route}`,
    };
  },

  async listApiKeys() {
    const organization = await createOrganization();
    const headers = await consoleSessionHeaders(organization.userId, organization.organizationId);
    await times(5, (index) => post(headers, "/api-keys", { name: `Walker ${index}`, scopes: ["tasks:read"] }));
    return { path: "/api-keys", headers, values: {}, order: descendingBy(createdAt, id) };
  },

  async listIntegrations() {
    return {
      path: "/public/integrations/crm",
      headers: {},
      values: {},
      // In the catalogue's own order, which no key of the items shows.
      order: null,
      idOf: (integration) => integration.slug as string,
      fixedSize: true,
    };
  },
};
