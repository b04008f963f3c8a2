import { env } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { regional } from "@crm/db";
import { eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { Webhook } from "standardwebhooks";
import { beforeAll, describe, expect, it } from "vitest";
import { type ErrorBody, errorOf, expectStatus, objectTypesOf, unique } from "./crm";
import { countRows } from "./fixtures";
import { clientAddress } from "./mcp";
import {
  type Connection,
  connect,
  createPerson,
  deliver,
  expectReceived,
  inboundPath,
  type Meeting,
  meetingById,
  meetingTitled,
} from "./meetings";
import { firstReceived, received, receiverPath, receiverUrl } from "./receiver";
import { baseUrl, call, cast } from "./stack";

const gateway = (exports as unknown as { default: Fetcher }).default;

let key: string;
let salesId: string;
let peopleTypeId: string;
let notes: { connection: Connection; secret: string };
let calling: { connection: Connection; secret: string };

beforeAll(async () => {
  const { alice, sales } = await cast();
  key = alice.apiKey;
  salesId = sales.id;
  peopleTypeId = (await objectTypesOf(key, sales.id)).find((type) => type.slug === "people")?.id as string;
  notes = await connect(key, salesId, "meeting_notes", "Notetaker");
  calling = await connect(key, salesId, "calling", "Aircall");
});

const notesPath = () => inboundPath(notes.connection);
const callingPath = () => inboundPath(calling.connection);
const scheduled = (meetingId: string, data: Record<string, unknown> = {}, occurredAt = Date.now()) => ({
  type: "meeting.scheduled",
  occurredAt,
  data: { meetingId, title: `Meeting ${meetingId}`, startTimeMs: Date.now() + 86_400_000, ...data },
});

const deliveriesOf = (connectionId: string) =>
  countRows("us", regional.inboundDeliveries, eq(regional.inboundDeliveries.connectionId, connectionId));
const meetingsOfSales = () => countRows("us", regional.meetings, eq(regional.meetings.workspaceId, salesId));

async function expectError(response: Response, status: number, code: string) {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  expect((JSON.parse(text) as ErrorBody).error.code).toBe(code);
}

/** A delivery signed as the provider signs it, its body sent as `type` (without a `Content-Type` when null). */
function deliverAs(path: string, secret: string, event: unknown, type: string | null) {
  const body = JSON.stringify(event);
  const webhookId = `msg_${unique()}${unique()}`;
  const at = new Date();
  const headers: Record<string, string> = {
    "webhook-id": webhookId,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": new Webhook(secret).sign(webhookId, at, body),
  };
  if (type !== null) headers["content-type"] = type;
  // Bytes, not text: fetch gives a text body `text/plain` of its own.
  return call(path, { method: "POST", headers, body: new TextEncoder().encode(body) });
}

describe("inbound webhooks: refusals store nothing", () => {
  it("401 without a signature, with a wrong secret, a stale or future timestamp, or a tampered body", async () => {
    const event = scheduled(`refused-${unique()}`);
    const before = { deliveries: await deliveriesOf(notes.connection.id), meetings: await meetingsOfSales() };
    const body = JSON.stringify(event);
    const unsigned = await call(notesPath(), { method: "POST", body, headers: { "content-type": "application/json" } });
    await expectError(unsigned, 401, "unauthorized");
    await expectError(await deliver(notesPath(), `whsec_${"ab".repeat(32)}`, event), 401, "unauthorized");
    await expectError(
      await deliver(notesPath(), notes.secret, event, { at: new Date(Date.now() - 6 * 60_000) }),
      401,
      "unauthorized",
    );
    await expectError(
      await deliver(notesPath(), notes.secret, event, { at: new Date(Date.now() + 6 * 60_000) }),
      401,
      "unauthorized",
    );
    // Signed for one body, sent with another.
    const signature = new Webhook(notes.secret).sign("msg_tampered", new Date(), body);
    const tampered = await call(notesPath(), {
      method: "POST",
      body: body.replace("Meeting", "Meetinh"),
      headers: {
        "content-type": "application/json",
        "webhook-id": "msg_tampered",
        "webhook-timestamp": String(Math.floor(Date.now() / 1000)),
        "webhook-signature": signature,
      },
    });
    await expectError(tampered, 401, "unauthorized");
    // A calling connection's secret does not open the meeting-notes connection, nor its route.
    await expectError(await deliver(notesPath(), calling.secret, event), 401, "unauthorized");
    await expectError(
      await deliver(`/integrations/meeting-notes/webhooks/${calling.connection.id}`, calling.secret, event),
      404,
      "not_found",
    );
    expect(await deliveriesOf(notes.connection.id)).toBe(before.deliveries);
    expect(await meetingsOfSales()).toBe(before.meetings);
  });

  it("404 for an unknown connection", async () => {
    const event = scheduled("unknown");
    await expectError(
      await deliver("/integrations/meeting-notes/webhooks/conn_01unknown0000000000000000", notes.secret, event),
      404,
      "not_found",
    );
    await expectError(
      await deliver("/calling/webhooks/aircall/conn_01unknown0000000000000000", notes.secret, event),
      404,
      "not_found",
    );
  });

  it("400 for a signed body that is not JSON or not an event, 413 for 1 MiB or more", async () => {
    const before = await deliveriesOf(notes.connection.id);
    await expectError(await deliver(notesPath(), notes.secret, null, { rawBody: "not json {" }), 400, "invalid_request");
    await expectError(await deliver(notesPath(), notes.secret, { type: "meeting.scheduled" }), 400, "invalid_request");
    const invalid = await deliver(notesPath(), notes.secret, {
      type: "meeting.scheduled",
      occurredAt: Date.now(),
      data: { title: "no id" },
    });
    expect(invalid.status).toBe(400);
    expect((await errorOf(invalid)).details?.[0]?.path).toBe("body.data.meetingId");
    const surrogate = await deliver(notesPath(), notes.secret, null, {
      rawBody: JSON.stringify(scheduled("surrogate", { title: "x" })).replace('"title":"x"', '"title":"x\\ud83d"'),
    });
    expect(surrogate.status).toBe(400);
    expect((await errorOf(surrogate)).details).toContainEqual({
      path: "body.data.title",
      message: "Not well-formed Unicode (a lone UTF-16 surrogate)",
    });
    await expectError(await deliver(`${notesPath()}?unexpected=1`, notes.secret, scheduled("query")), 400, "invalid_request");
    const huge = scheduled("huge", { description: "x".repeat(1024 * 1024) });
    await expectError(await deliver(notesPath(), notes.secret, huge), 413, "payload_too_large");
    expect(await deliveriesOf(notes.connection.id)).toBe(before);
  });

  it("415 for a signed body sent as anything but JSON, on both routes, before the connection is looked up", async () => {
    const before = await deliveriesOf(notes.connection.id);
    const unknownConnection = "/integrations/meeting-notes/webhooks/conn_01unknown0000000000000000";
    for (const path of [notesPath(), callingPath(), unknownConnection]) {
      for (const type of ["text/plain", "application/xml", "application/x-www-form-urlencoded", null]) {
        const secret = path === callingPath() ? calling.secret : notes.secret;
        await expectError(await deliverAs(path, secret, scheduled(`media-${unique()}`), type), 415, "unsupported_media_type");
      }
    }
    expect(await deliveriesOf(notes.connection.id)).toBe(before);
    // JSON with its parameters is JSON.
    await expectReceived(
      await deliverAs(notesPath(), notes.secret, scheduled(`charset-${unique()}`), "application/json; charset=utf-8"),
    );
  });

  it("400 for a provider segment the document does not allow, before the connection is looked up", async () => {
    const before = await deliveriesOf(calling.connection.id);
    const started = () => ({ type: "call.started", occurredAt: Date.now(), data: { callId: `c-${unique()}` } });
    for (const provider of ["a".repeat(5_000), "air%00call", "AirCall", "air_call"]) {
      for (const connectionId of [calling.connection.id, "conn_01unknown0000000000000000"]) {
        const response = await deliver(`/calling/webhooks/${provider}/${connectionId}`, calling.secret, started());
        expect(response.status).toBe(400);
        const details = (await errorOf(response)).details ?? [];
        expect(details.length).toBeGreaterThan(0);
        expect(details.map((detail) => detail.path)).toEqual(details.map(() => "path.provider"));
      }
    }
    expect(await deliveriesOf(calling.connection.id)).toBe(before);
  });

  it("answers 200 to an unknown event type, records it and changes nothing else", async () => {
    const before = await meetingsOfSales();
    const webhookId = `msg_unknown_${unique()}`;
    const response = await deliver(
      notesPath(),
      notes.secret,
      { type: "bot.joined", occurredAt: Date.now(), data: {} },
      { webhookId },
    );
    expect(await expectReceived(response)).toEqual({ received: true });
    const [row] = await drizzle(env.US_DB_1)
      .select()
      .from(regional.inboundDeliveries)
      .where(eq(regional.inboundDeliveries.webhookId, webhookId));
    expect(row).toMatchObject({ connectionId: notes.connection.id, eventType: "bot.joined", outcome: "ignored" });
    expect(await meetingsOfSales()).toBe(before);
  });
});

describe("inbound webhooks: applied once per webhook-id", () => {
  it("a repeat answers 200 and changes nothing", async () => {
    const id = `repeat-${unique()}`;
    const webhookId = `msg_${unique()}`;
    await expectReceived(await deliver(notesPath(), notes.secret, scheduled(id), { webhookId }));
    const meeting = await meetingTitled(key, salesId, `Meeting ${id}`);
    const events = () => countRows("us", regional.eventOutbox, eq(regional.eventOutbox.type, "meeting.updated"));
    const eventsBefore = await events();
    const again = scheduled(id, { title: "Changed by a repeat" });
    expect(await expectReceived(await deliver(notesPath(), notes.secret, again, { webhookId }))).toEqual({ received: true });
    expect(await meetingById(key, meeting.id)).toEqual(meeting);
    expect(await events()).toBe(eventsBefore);
  });

  it("two identical deliveries at the same instant apply once", async () => {
    const id = `concurrent-${unique()}`;
    const webhookId = `msg_${unique()}`;
    const at = new Date();
    const responses = await Promise.all(
      Array.from({ length: 4 }, () => deliver(notesPath(), notes.secret, scheduled(id, {}, at.getTime()), { webhookId, at })),
    );
    for (const response of responses) await expectReceived(response);
    expect(await countRows("us", regional.meetings, eq(regional.meetings.externalId, id))).toBe(1);
    expect(await countRows("us", regional.inboundDeliveries, eq(regional.inboundDeliveries.webhookId, webhookId))).toBe(1);
  });
});

describe("inbound webhooks: meetings", () => {
  it("creates a meeting with participants resolved to people records by e-mail", async () => {
    const guest = await createPerson(key, peopleTypeId, "Grace Guest");
    const id = `resolve-${unique()}`;
    const event = scheduled(id, {
      organizerEmail: "Alice@Acme.example",
      timezone: "Europe/Berlin",
      meetingUrl: "https://meet.example/abc",
      attendees: [
        { email: guest.email.toUpperCase(), name: "Grace" },
        { email: "nobody-matches@void.example", name: "Stranger" },
        { email: "alice@acme.example", name: "Alice" },
      ],
    });
    await expectReceived(await deliver(notesPath(), notes.secret, event));
    const meeting = await meetingTitled(key, salesId, `Meeting ${id}`);
    expect(meeting).toMatchObject({ eventState: "active", hasTranscript: false, transcriptStatus: "pending" });
    expect(meeting.attendeeEmails).toEqual([guest.email, "nobody-matches@void.example", "alice@acme.example"]);
    const byEmail = Object.fromEntries(meeting.participants.map((participant) => [participant.email, participant]));
    expect(byEmail[guest.email]).toMatchObject({ resolvedRecordId: guest.id, fromCalendarInvitee: true, isHost: false });
    expect(byEmail["nobody-matches@void.example"]?.resolvedRecordId).toBeNull();
    expect(byEmail["alice@acme.example"]?.isHost).toBe(true);
  });

  it("never moves a meeting back: an older event arriving late changes nothing", async () => {
    const id = `order-${unique()}`;
    const t = Date.now() - 60_000;
    await expectReceived(
      await deliver(notesPath(), notes.secret, {
        ...scheduled(id, { title: `Meeting ${id}` }, t + 2_000),
        type: "meeting.cancelled",
      }),
    );
    await expectReceived(await deliver(notesPath(), notes.secret, scheduled(id, { title: "Old title" }, t)));
    const meeting = await meetingTitled(key, salesId, `Meeting ${id}`);
    expect(meeting.eventState).toBe("cancelled");
    // Recording states too: "available" at t+2 stays when "processing" of t+1 comes after it.
    const recording = (status: string, at: number) => ({
      type: "recording.status_changed",
      occurredAt: at,
      data: { meetingId: id, status, recordingId: "rec-1" },
    });
    await expectReceived(await deliver(notesPath(), notes.secret, recording("available", t + 2_000)));
    await expectReceived(await deliver(notesPath(), notes.secret, recording("processing", t + 1_000)));
    expect((await meetingById(key, meeting.id)).recordingStatus).toBe("available");
    // A newer schedule event does apply.
    await expectReceived(
      await deliver(notesPath(), notes.secret, {
        ...scheduled(id, { title: `Meeting ${id}` }, t + 3_000),
        type: "meeting.updated",
      }),
    );
    expect((await meetingById(key, meeting.id)).eventState).toBe("active");
  });

  it("turns each action item into one source-managed task, however often the transcript comes", async () => {
    const guest = await createPerson(key, peopleTypeId, "Tina Task");
    const assignee = await createPerson(key, peopleTypeId, "Adam Assignee");
    const id = `transcript-${unique()}`;
    await expectReceived(await deliver(notesPath(), notes.secret, scheduled(id, { attendees: [{ email: guest.email }] })));
    const transcript = {
      type: "transcript.ready",
      occurredAt: Date.now(),
      data: {
        meetingId: id,
        actionItems: [
          { id: "ai-1", text: "Send the proposal", dueAt: Date.now() + 86_400_000 },
          { id: "ai-2", text: "Book the follow-up", assigneeEmail: assignee.email },
        ],
      },
    };
    await expectReceived(await deliver(notesPath(), notes.secret, transcript));
    // Another delivery of the same transcript (a new webhook-id) and a repeat of the first.
    await expectReceived(await deliver(notesPath(), notes.secret, transcript));
    const meeting = await meetingTitled(key, salesId, `Meeting ${id}`);
    expect(meeting).toMatchObject({ hasTranscript: true, transcriptStatus: "ready" });
    const tasks = await countRows("us", regional.tasks, eq(regional.tasks.sourceId, meeting.id));
    expect(tasks).toBe(2);
    const rows = await drizzle(env.US_DB_1).select().from(regional.tasks).where(eq(regional.tasks.sourceId, meeting.id));
    const byTitle = Object.fromEntries(rows.map((row) => [row.title, row]));
    expect(byTitle["Send the proposal"]?.recordId).toBe(guest.id);
    expect(byTitle["Book the follow-up"]?.recordId).toBe(assignee.id);
    const taskId = byTitle["Send the proposal"]?.id as string;
    const { task } = await expectStatus<{ task: { source: unknown; linkedResources: unknown[] } }>(200, `/tasks/${taskId}`, {
      key,
    });
    expect(task.source).toEqual({ resourceType: "meeting", resourceId: meeting.id });
    expect(task.linkedResources).toEqual([
      { resourceType: "meeting", resourceId: meeting.id, label: `Meeting ${id}`, channel: "meeting" },
    ]);
    const change = await call(`/tasks/${taskId}`, { method: "PATCH", key, json: { title: "Mine now" } });
    expect(change.status).toBe(409);
    // A later transcript with one more item adds exactly that one.
    const more = {
      ...transcript,
      data: { ...transcript.data, actionItems: [...transcript.data.actionItems, { id: "ai-3", text: "Share notes" }] },
    };
    await expectReceived(await deliver(notesPath(), notes.secret, more));
    expect(await countRows("us", regional.tasks, eq(regional.tasks.sourceId, meeting.id))).toBe(3);
  });

  it("participants.updated merges with the invitees and resolves new addresses", async () => {
    const guest = await createPerson(key, peopleTypeId, "Pat Participant");
    const id = `participants-${unique()}`;
    await expectReceived(await deliver(notesPath(), notes.secret, scheduled(id, { attendees: [{ email: guest.email }] })));
    const update = {
      type: "participants.updated",
      occurredAt: Date.now(),
      data: {
        meetingId: id,
        participants: [
          { id: "p-1", email: guest.email, name: "Pat", joined: true },
          { id: "p-2", name: "Dial-in caller" },
        ],
      },
    };
    await expectReceived(await deliver(notesPath(), notes.secret, update));
    const meeting = await meetingTitled(key, salesId, `Meeting ${id}`);
    expect(meeting.participants).toHaveLength(2);
    expect(meeting.participants[0]).toMatchObject({
      email: guest.email,
      name: "Pat",
      fromCalendarInvitee: true,
      fromRealtimeParticipant: true,
      resolvedRecordId: guest.id,
    });
    expect(meeting.participants[1]).toMatchObject({ email: null, name: "Dial-in caller", resolvedRecordId: null });
  });
});

describe("inbound webhooks: calls", () => {
  it("sets the call fields, also when the end arrives before the start", async () => {
    const callId = `call-${unique()}`;
    const started = Date.now() - 120_000;
    const ended = started + 90_000;
    await expectReceived(
      await deliver(callingPath(), calling.secret, { type: "call.ended", occurredAt: ended, data: { callId, durationSec: 90 } }),
    );
    await expectReceived(
      await deliver(callingPath(), calling.secret, {
        type: "call.started",
        occurredAt: started,
        data: { callId, title: `Call ${callId}` },
      }),
    );
    await expectReceived(
      await deliver(callingPath(), calling.secret, {
        type: "call.recording_ready",
        occurredAt: ended + 5_000,
        data: { callId, recordingId: "crec-9" },
      }),
    );
    const meeting = await meetingTitled(key, salesId, `Call ${callId}`);
    expect(meeting).toMatchObject({
      callStatus: "ended",
      startedAtMs: started,
      endedAtMs: ended,
      startTimeMs: started,
      durationSec: 90,
      callRecordingId: "crec-9",
      recordingStatus: "available",
    });
  });

  it("keeps the newer call state: an older call.started or call.ended changes nothing it set", async () => {
    const callId = `call-${unique()}`;
    const started = Date.now() - 300_000;
    const ended = started + 200_000;
    const send = async (event: Record<string, unknown>) => expectReceived(await deliver(callingPath(), calling.secret, event));
    await send({ type: "call.started", occurredAt: started, data: { callId, title: `Call ${callId}` } });
    // The provider retries an earlier start it had queued: its title and start are older than what is stored.
    await send({ type: "call.started", occurredAt: started - 60_000, data: { callId, title: `Stale ${callId}` } });
    await send({ type: "call.ended", occurredAt: ended, data: { callId, durationSec: 200 } });
    // An end from before the stored one (a leg that hung up first): stale, the later end keeps its time.
    await send({ type: "call.ended", occurredAt: ended - 100_000, data: { callId, durationSec: 100 } });
    const meeting = await meetingTitled(key, salesId, `Call ${callId}`);
    expect(meeting).toMatchObject({
      callStatus: "ended",
      startedAtMs: started,
      startTimeMs: started,
      endedAtMs: ended,
      endTimeMs: ended,
      durationSec: 200,
    });
  });

  it("ignores a meeting-notes event on the calling route (not a calling event type), and any provider name in the path works", async () => {
    const before = await meetingsOfSales();
    await expectReceived(await deliver(callingPath(), calling.secret, scheduled(`wrong-kind-${unique()}`)));
    expect(await meetingsOfSales()).toBe(before);
    await expectError(
      await deliver(callingPath(), calling.secret, { type: "call.ended", occurredAt: Date.now(), data: {} }),
      400,
      "invalid_request",
    );
    const path = `/calling/webhooks/other-name/${calling.connection.id}`;
    await expectReceived(
      await deliver(path, calling.secret, { type: "call.started", occurredAt: Date.now(), data: { callId: `c-${unique()}` } }),
    );
  });
});

describe("inbound webhooks: outbound events", () => {
  it("delivers meeting.transcript_ready to a subscription, verifiable with standardwebhooks", async () => {
    const path = receiverPath("hook-meetings");
    const { secret } = await expectStatus<{ secret: string }>(201, "/webhooks", {
      method: "POST",
      key,
      json: { workspaceId: salesId, url: receiverUrl(path), eventTypes: ["meeting.transcript_ready"] },
    });
    const id = `delivered-${unique()}`;
    await expectReceived(await deliver(notesPath(), notes.secret, scheduled(id)));
    await expectReceived(
      await deliver(notesPath(), notes.secret, {
        type: "transcript.ready",
        occurredAt: Date.now(),
        data: { meetingId: id, actionItems: [] },
      }),
    );
    const request = await firstReceived(path);
    expect(await received(path)).toHaveLength(1);
    const event = new Webhook(secret).verify(request.body, request.headers) as {
      type: string;
      data: Meeting & { actionItemTaskIds: string[] };
    };
    expect(event.type).toBe("meeting.transcript_ready");
    expect(event.data).toMatchObject({ title: `Meeting ${id}`, hasTranscript: true, actionItemTaskIds: [] });
  });
});

describe("inbound webhooks: the connection's window", () => {
  it("counts only deliveries whose signature verified: 610 unsigned posts leave the provider's real event answered", async () => {
    const { alice } = await cast();
    const target = await connect(alice.apiKey, salesId, "meeting_notes", "Junk target");
    const path = inboundPath(target.connection);
    const body = JSON.stringify(scheduled(`junk-${unique()}`));
    // From many addresses, as a spread-out sender would: the per-address windows do not stop it.
    const post = () =>
      gateway.fetch(`${baseUrl}${path}`, {
        method: "POST",
        body,
        headers: { "content-type": "application/json", "cf-connecting-ip": clientAddress() },
      });
    for (let start = 0; start < 610; start += 61) {
      const batch = await Promise.all(Array.from({ length: 61 }, post));
      expect(batch.map((response) => response.status)).toEqual(Array(61).fill(401));
    }
    const real = await deliver(path, target.secret, scheduled(`real-${unique()}`));
    await expectReceived(real);
  }, 180_000);
});
