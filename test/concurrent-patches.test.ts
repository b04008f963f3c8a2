import { regional } from "@crm/db";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { storeMessage } from "../workers/api/src/domain/inbox/store-message";
import { createField, createObjectType, createView, errorOf, expectStatus, unique } from "./crm";
import { regionDb } from "./fixtures";
import { addInboxMember, addPerson, inboundMessage, inboxWorkspace } from "./inbox";
import { call } from "./stack";

/**
 * Writes never lose an update (DESIGN.md section 2): concurrent PATCHes of different fields of one
 * resource all survive; of the same field, one whole value wins and the others are 200 before it
 * or 409 `conflict`, never a mix and never a 500. Every resource that has a PATCH, two and eight at a time.
 */

type Json = Record<string, unknown>;

interface Subject {
  name: string;
  /** The resource's path (PATCH there). */
  path: string;
  /** The key its body is wrapped in. */
  wrapper: string;
  /** One change per field, each of a different field, as PATCH bodies; values differ by round (`n`). */
  changes: (n: number) => Json[];
  /** Eight bodies setting the same field to different whole values. */
  same: (i: number) => Json;
  /** The key of the organization the resource lives in (each subject has one of its own, so rate windows stay apart). */
  key: string;
}

let subjects: Subject[];

const names = [
  "task",
  "note",
  "record view",
  "inbox view",
  "conversation",
  "webhook",
  "object type",
  "field",
  "option",
  "record",
  "compose draft",
  "comment",
  "tag",
];

/** What a body sets, as the resource shows it: records show their fields under `fields`. */
const shownOf = (body: Json): Json => ("fields" in body ? (body.fields as Json) : body);
function resourceShown(subject: Subject, resource: Json): Json {
  if (subject.wrapper === "record") return resource.fields as Json;
  // A conversation shows its assignees as people; the request names their ids.
  if (subject.wrapper === "conversation") {
    return { ...resource, assigneeUserIds: (resource.assignees as { id: string }[]).map((person) => person.id) };
  }
  return resource;
}

/**
 * The resource as stored now and its ETag: an empty PATCH changes nothing and answers both (some
 * resources have no GET; a record's needs fields).
 */
async function currentVersion(subject: Subject) {
  const response = await call(
    subject.path,
    subject.wrapper === "record" ? { key: subject.key } : { method: "PATCH", key: subject.key, json: {} },
  );
  expect(response.status, `${subject.name}: ${response.status}`).toBe(200);
  const etag = response.headers.get("etag");
  expect(etag, subject.name).toMatch(/^"[\w-]{43}"$/);
  return { resource: ((await response.json()) as Json)[subject.wrapper] as Json, etag: etag as string };
}

const current = async (subject: Subject) => (await currentVersion(subject)).resource;

const patch = (subject: Subject, json: Json) => call(subject.path, { method: "PATCH", key: subject.key, json });

/** Every resource that has a PATCH, in a fresh organization. */
async function resources(): Promise<Subject[]> {
  const workspace = await inboxWorkspace();
  const { key, workspaceId, mailbox } = workspace;
  const member = await addInboxMember(workspace, "member", "all");
  const personId = await addPerson(key, workspaceId, "Pat Person", `pat-${unique()}@customer.example`);
  const vendor = await createObjectType(key, workspaceId);
  const slugs = Array.from({ length: 8 }, (_, i) => `note_${i}`);
  for (const slug of slugs) await createField(key, vendor.id, { name: `Note ${slug}`, slug, type: "text" });
  const choice = await createField(key, vendor.id, { name: "Tier", type: "select", options: [{ value: "gold" }] });

  const task = await expectStatus<{ task: Json }>(201, `/records/${personId}/tasks`, {
    method: "POST",
    key,
    json: { title: "Call back" },
  });
  const note = await expectStatus<{ note: Json }>(201, `/records/${personId}/notes`, {
    method: "POST",
    key,
    json: { title: "First call", contentHtml: "<p>hello</p>" },
  });
  const view = await createView(key, vendor.id, { name: "All vendors" });
  const inboxView = await expectStatus<{ view: Json }>(201, "/inbox/views", {
    method: "POST",
    key,
    json: { workspaceId, name: "Mine", visibility: "workspace" },
  });
  const { conversationId } = await storeMessage(workspace.db, inboundMessage(mailbox));
  const webhook = await expectStatus<{ webhook: Json }>(201, "/webhooks", {
    method: "POST",
    key,
    json: { workspaceId, url: "http://127.0.0.1:9/hook", eventTypes: ["task.created"] },
  });
  const field = await createField(key, vendor.id, { name: "Spare", type: "text" });
  const record = await expectStatus<{ record: Json }>(201, "/records", {
    method: "POST",
    key,
    json: { objectTypeId: vendor.id, fields: { name: "Acme Supplies" } },
  });
  const draft = await expectStatus<{ draft: Json }>(201, "/inbox/drafts", {
    method: "POST",
    key,
    json: { workspaceId, mailbox, to: ["first@customer.example"] },
  });
  const option = choice.options?.[0] as { id: string };
  const otherObject = await createObjectType(key, workspaceId);
  const comment = await expectStatus<{ comment: Json }>(201, `/inbox/conversations/${conversationId}/comments`, {
    method: "POST",
    key,
    json: { text: "Looking into it" },
  });
  const tag = await expectStatus<{ tag: Json }>(201, "/inbox/tags", {
    method: "POST",
    key,
    json: { workspaceId, name: `Billing ${unique()}`, color: "#22c55e" },
  });

  const all: Omit<Subject, "key">[] = [
    {
      name: "task",
      path: `/tasks/${task.task.id}`,
      wrapper: "task",
      changes: (n) => [
        { title: `Call back ${n}` },
        { status: n === 2 ? "done" : "in_progress" },
        { dueAt: 1_900_000_000_000 + n },
        { descriptionHtml: `<p>Ask about pricing ${n}</p>` },
        { assigneeUserIds: n === 2 ? [member.userId] : [] },
      ],
      same: (i) => ({ title: `Title ${i}` }),
    },
    {
      name: "note",
      path: `/notes/${note.note.id}`,
      wrapper: "note",
      changes: (n) => [{ title: `Call ${n}` }, { contentHtml: `<p>went well ${n}</p>` }],
      same: (i) => ({ title: `Title ${i}` }),
    },
    {
      name: "record view",
      path: `/crm/views/${view.id}`,
      wrapper: "view",
      changes: (n) => [{ name: `Every vendor ${n}` }, { emoji: n === 2 ? "🚚" : "📦" }],
      same: (i) => ({ name: `View ${i}` }),
    },
    {
      name: "inbox view",
      path: `/inbox/views/${inboxView.view.id}`,
      wrapper: "view",
      changes: (n) => [{ name: `Ours ${n}` }, { emoji: n === 2 ? "📬" : "📮" }],
      same: (i) => ({ name: `Inbox view ${i}` }),
    },
    {
      name: "conversation",
      path: `/inbox/conversations/${conversationId}`,
      wrapper: "conversation",
      changes: (n) => [{ isClosed: n === 2 }, { assigneeUserIds: n === 2 ? [member.userId] : [] }],
      same: (i) => ({ assigneeUserIds: i % 2 === 0 ? [member.userId] : [] }),
    },
    {
      name: "webhook",
      path: `/webhooks/${webhook.webhook.id}`,
      wrapper: "webhook",
      changes: (n) => [
        { description: `CRM sync ${n}` },
        { eventTypes: [n === 2 ? "task.updated" : "note.created"] },
        { url: `http://127.0.0.1:9/other-${n}` },
        { isActive: n !== 2 },
        { objectTypeIds: n === 2 ? [vendor.id] : [] },
      ],
      same: (i) => ({ description: `Description ${i}` }),
    },
    {
      name: "object type",
      path: `/crm/objects/${otherObject.id}`,
      wrapper: "object",
      changes: (n) => [
        { nameSingular: `Supplier ${n} ${unique()}` },
        { namePlural: `Suppliers ${n} ${unique()}` },
        { icon: `truck-${n}` },
        { color: n === 2 ? "#336699" : "#993366" },
        { isActive: n !== 2 },
      ],
      same: (i) => ({ icon: `icon-${i}` }),
    },
    {
      name: "field",
      path: `/crm/fields/${field.id}`,
      wrapper: "field",
      changes: (n) => [{ name: `Spare text ${n}` }, { isRequired: n === 2 }, { defaultValue: `none ${n}` }],
      same: (i) => ({ name: `Field ${i}` }),
    },
    {
      name: "option",
      path: `/crm/fields/${choice.id}/options/${option.id}`,
      wrapper: "option",
      changes: (n) => [{ label: `Gold tier ${n}` }, { color: n === 2 ? "#aa8800" : "#0088aa" }, { value: `golden-${n}` }],
      same: (i) => ({ label: `Label ${i}` }),
    },
    {
      name: "record",
      path: `/records/${record.record.id}`,
      wrapper: "record",
      changes: (n) => slugs.map((slug) => ({ fields: { [slug]: `value ${n} of ${slug}` } })),
      same: (i) => ({ fields: { note_0: `Value ${i}` } }),
    },
    {
      name: "compose draft",
      path: `/inbox/drafts/${draft.draft.id}`,
      wrapper: "draft",
      changes: (n) => [
        { subject: `Pricing ${n}` },
        { text: `Hello ${n}` },
        { cc: [`copy-${n}@customer.example`] },
        { to: [`second-${n}@customer.example`] },
        { html: `<p>Hello ${n}</p>` },
      ],
      same: (i) => ({ subject: `Subject ${i}` }),
    },
    {
      name: "comment",
      path: `/inbox/comments/${comment.comment.id}`,
      wrapper: "comment",
      changes: (n) => [{ text: `Looking into it ${n}` }, { mentionUserIds: n === 2 ? [member.userId] : [] }],
      same: (i) => ({ text: `Text ${i}` }),
    },
    {
      name: "tag",
      path: `/inbox/tags/${tag.tag.id}`,
      wrapper: "tag",
      changes: (n) => [{ name: `Billing ${n} ${unique()}` }, { color: n === 2 ? "#336699" : "#993366" }],
      same: (i) => ({ color: `#00000${i}` }),
    },
  ];
  return all.map((subject) => ({ ...subject, key }));
}

beforeAll(async () => {
  // One organization per resource: its windows (180 requests a minute per identity) hold one resource's rounds.
  subjects = [];
  for (const name of names) {
    const subject = (await resources()).find((candidate) => candidate.name === name);
    if (subject) subjects.push(subject);
  }
}, 120_000);

const subjectNamed = (name: string) => subjects.find((subject) => subject.name === name) as Subject;

describe.each(names)("concurrent PATCHes of a %s", (name) => {
  for (const writers of [2, 8]) {
    it(`keeps every field of ${writers} concurrent PATCHes of different fields`, async () => {
      const subject = subjectNamed(name);
      const changes = subject.changes(writers).slice(0, writers);
      const responses = await Promise.all(changes.map((change) => patch(subject, change)));
      expect(responses.map((response) => response.status)).toEqual(changes.map(() => 200));
      const stored = resourceShown(subject, await current(subject));
      for (const change of changes) {
        for (const [key, value] of Object.entries(shownOf(change))) expect(stored[key], `${name} ${key}`).toEqual(value);
      }
    });

    it(`keeps one whole value of ${writers} concurrent PATCHes of the same field`, async () => {
      const subject = subjectNamed(name);
      const bodies = Array.from({ length: writers }, (_, i) => subject.same(i));
      const responses = await Promise.all(bodies.map((body) => patch(subject, body)));
      const statuses = responses.map((response) => response.status);
      for (const status of statuses) expect([200, 409]).toContain(status);
      expect(statuses).toContain(200);
      for (const response of responses.filter((response) => response.status === 409)) {
        expect((await errorOf(response)).code).toBe("conflict");
      }
      const [key] = Object.keys(shownOf(bodies[0] as Json));
      const stored = resourceShown(subject, await current(subject))[key as string];
      const won = bodies.filter((_, i) => statuses[i] === 200).map((body) => shownOf(body)[key as string]);
      expect(won).toContainEqual(stored);
    });
  }
});

describe.each(names)("concurrent PATCHes of a %s under one If-Match", (name) => {
  for (const writers of [2, 8]) {
    it(`lets one of ${writers} concurrent PATCHes holding the same ETag write, the others 412 with nothing written`, async () => {
      const subject = subjectNamed(name);
      const { resource: before, etag } = await currentVersion(subject);
      const changes = subject.changes(100 + writers).slice(0, writers);
      const responses = await Promise.all(
        changes.map((json) => call(subject.path, { method: "PATCH", key: subject.key, json, headers: { "if-match": etag } })),
      );
      const statuses = responses.map((response) => response.status);
      expect(statuses.filter((status) => status === 200)).toHaveLength(1);
      expect(statuses.filter((status) => status === 412)).toHaveLength(changes.length - 1);
      const winner = statuses.indexOf(200);
      const stored = resourceShown(subject, await current(subject));
      const shownBefore = resourceShown(subject, before);
      changes.forEach((change, i) => {
        for (const [key, value] of Object.entries(shownOf(change))) {
          expect(stored[key], `${name} ${key}`).toEqual(i === winner ? value : shownBefore[key]);
        }
      });
      // The stale ETag stays stale: a later PATCH with it is refused too.
      const later = await call(subject.path, {
        method: "PATCH",
        key: subject.key,
        json: subject.same(0),
        headers: { "if-match": etag },
      });
      expect(later.status).toBe(412);
    });
  }
});

describe("state a webhook's lane set on its own", () => {
  it("is never undone by a concurrent PATCH that does not name it", async () => {
    const subject = subjectNamed("webhook");
    const id = subject.path.split("/")[2];
    const db = regionDb("us");
    for (let round = 0; round < 10; round++) {
      await expectStatus(200, subject.path, { method: "PATCH", key: subject.key, json: { isActive: true } });
      // What the lane writes on a 410 (endpoint-lane.ts), racing a client's change of another field.
      const [response] = await Promise.all([
        patch(subject, { description: `Round ${round}` }),
        db
          .update(regional.webhooks)
          .set({ isActive: false, disabledReason: "gone", updatedAt: Date.now() })
          .where(eq(regional.webhooks.id, id as string)),
      ]);
      expect(response.status).toBe(200);
      const stored = await current(subject);
      expect([stored.isActive, stored.disabledReason, stored.description]).toEqual([false, "gone", `Round ${round}`]);
    }
  });
});
