import { Webhook } from "standardwebhooks";
import { beforeAll, describe, expect, it } from "vitest";
import { expectStatus, objectTypesOf, unique } from "./crm";
import { received, receiverPath, receiverUrl } from "./receiver";
import { cast, eventually } from "./stack";

interface Delivered {
  type: string;
  objectTypeId?: string;
  data: { id: string; changedFields?: string[] };
}

const taskAndNoteEvents = [
  "task.created",
  "task.updated",
  "task.deleted",
  "note.created",
  "note.updated",
  "note.deleted",
] as const;

let key: string;
let salesId: string;
let people: string;
let companies: string;

beforeAll(async () => {
  const { alice, sales } = await cast();
  key = alice.apiKey;
  salesId = sales.id;
  const [peopleType, companiesType] = await objectTypesOf(key, sales.id);
  people = peopleType?.id as string;
  companies = companiesType?.id as string;
});

/** A subscription to every task and note event (of records of one object type when given); its verified deliveries. */
async function subscribe(objectTypeId?: string) {
  const path = receiverPath();
  const { secret } = await expectStatus<{ secret: string }>(201, "/webhooks", {
    method: "POST",
    key,
    json: {
      workspaceId: salesId,
      url: receiverUrl(path),
      eventTypes: taskAndNoteEvents,
      ...(objectTypeId ? { objectTypeIds: [objectTypeId] } : {}),
    },
  });
  return async () =>
    (await received(path)).map((request) => new Webhook(secret).verify(request.body, request.headers) as Delivered);
}

describe("task and note events", () => {
  it("name the record's object type, so objectTypeIds filters deliver every one of them", async () => {
    const peopleDeliveries = await subscribe(people);
    const companyDeliveries = await subscribe(companies);
    const person = await expectStatus<{ record: { id: string } }>(201, "/records", {
      method: "POST",
      key,
      json: { objectTypeId: people, fields: { name: `Events ${unique()}` } },
    });
    const recordId = person.record.id;
    const { task } = await expectStatus<{ task: { id: string } }>(201, `/records/${recordId}/tasks`, {
      method: "POST",
      key,
      json: { title: "Call back" },
    });
    await expectStatus(200, `/tasks/${task.id}`, { method: "PATCH", key, json: { status: "done" } });
    await expectStatus(200, `/tasks/${task.id}`, { method: "DELETE", key });
    const { note } = await expectStatus<{ note: { id: string } }>(201, `/records/${recordId}/notes`, {
      method: "POST",
      key,
      json: { title: "Call summary", contentHtml: "<p>Asked for a quote</p>" },
    });
    await expectStatus(200, `/notes/${note.id}`, { method: "PATCH", key, json: { contentPlain: "Asked for a quote, twice" } });
    await expectStatus(200, `/notes/${note.id}`, { method: "DELETE", key });

    const events = await eventually(peopleDeliveries, (items) => items.length >= taskAndNoteEvents.length);
    expect(events.map((event) => event.type).sort()).toEqual([...taskAndNoteEvents].sort());
    for (const event of events) expect(event.objectTypeId, event.type).toBe(people);
    expect(await companyDeliveries()).toEqual([]);
  });

  it("note.updated lists only the fields whose value changed", async () => {
    const deliveries = await subscribe();
    const person = await expectStatus<{ record: { id: string } }>(201, "/records", {
      method: "POST",
      key,
      json: { objectTypeId: people, fields: { name: `Changes ${unique()}` } },
    });
    const { note } = await expectStatus<{ note: { id: string } }>(201, `/records/${person.record.id}/notes`, {
      method: "POST",
      key,
      json: { title: "Kickoff", contentHtml: "<p>Agenda</p>" },
    });
    // The title is sent unchanged; only the HTML content differs.
    await expectStatus(200, `/notes/${note.id}`, {
      method: "PATCH",
      key,
      json: { title: "Kickoff", contentHtml: "<p>Agenda and notes</p>" },
    });
    const isUpdate = (event: Delivered) => event.type === "note.updated" && event.data.id === note.id;
    const events = await eventually(deliveries, (items) => items.some(isUpdate));
    const updated = events.find(isUpdate);
    expect(updated?.data.changedFields).toEqual(["contentHtml"]);
  });
});
