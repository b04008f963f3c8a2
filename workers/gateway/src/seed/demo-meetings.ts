import { type Operation, operations, webhookHeaders } from "@crm/contracts";
import type { GatewayCall } from "../pipeline/operation-call";
import { runOperation } from "../pipeline/run-operation";

const hourMs = 3_600_000;
const dayMs = 24 * hourMs;

/** Where the demo meetings go: a workspace, its owner's full-scope key, and two of its demo people. */
export interface MeetingsSeedPlace {
  /** The gateway's origin, as the seed request reached it. */
  origin: string;
  ownerKey: string;
  ownerEmail: string;
  workspaceId: string;
  /** Addresses of demo people records of the workspace (demo-data.ts in the regional Worker). */
  customerEmail: string;
  prospectEmail: string;
}

/** Runs one catalogue operation through the gateway's pipeline in process, exactly as a client's request. */
async function runAsClient<T>(
  call: GatewayCall,
  operation: Operation,
  url: string,
  init: { headers?: Record<string, string>; body?: string },
): Promise<T> {
  const headers = new Headers(init.headers);
  headers.set("cf-connecting-ip", "127.0.0.1");
  if (init.body !== undefined) headers.set("content-type", "application/json");
  const response = await runOperation(call, operation, {
    method: operation.method.toUpperCase(),
    url: new URL(url),
    headers,
    body: init.body === undefined ? null : (new TextEncoder().encode(init.body).buffer as ArrayBuffer),
  });
  if (!response.ok) throw new Error(`Seeding ${operation.operationId} failed with ${response.status}: ${await response.text()}`);
  return (await response.json()) as T;
}

/** The provider events of the demo: a meeting with a transcript and two action items, one ahead, one cancelled, and a call. */
function demoEvents(place: MeetingsSeedPlace, now: number) {
  const { ownerEmail, customerEmail, prospectEmail } = place;
  const kickoffStart = now - 2 * dayMs;
  const notes = [
    {
      type: "meeting.scheduled",
      occurredAt: kickoffStart - 3 * dayMs,
      data: {
        meetingId: "demo-kickoff",
        title: "Renewal kickoff with Initech",
        description: "Scope and pricing of the renewal",
        startTimeMs: kickoffStart,
        endTimeMs: kickoffStart + hourMs,
        timezone: "America/New_York",
        meetingUrl: "https://meet.example/demo-kickoff",
        organizerEmail: ownerEmail,
        attendees: [
          { email: ownerEmail, name: "Alice" },
          { email: customerEmail, name: "Peter Gibbons" },
        ],
      },
    },
    {
      type: "participants.updated",
      occurredAt: kickoffStart + 5 * 60_000,
      data: {
        meetingId: "demo-kickoff",
        participants: [
          { id: "demo-p1", email: ownerEmail, name: "Alice", isHost: true, joined: true },
          { id: "demo-p2", email: customerEmail, name: "Peter Gibbons", joined: true },
        ],
      },
    },
    {
      type: "recording.status_changed",
      occurredAt: kickoffStart + hourMs,
      data: { meetingId: "demo-kickoff", recordingId: "demo-rec-1", status: "available" },
    },
    {
      type: "transcript.ready",
      occurredAt: kickoffStart + 2 * hourMs,
      data: {
        meetingId: "demo-kickoff",
        actionItems: [
          { id: "demo-ai-1", text: "Send the renewal proposal", assigneeEmail: customerEmail, dueAt: now + 7 * dayMs },
          { id: "demo-ai-2", text: "Schedule the pricing review" },
        ],
      },
    },
    {
      type: "meeting.scheduled",
      occurredAt: now - dayMs,
      data: {
        meetingId: "demo-pilot",
        title: "Hooli pilot review",
        startTimeMs: now + 3 * dayMs,
        endTimeMs: now + 3 * dayMs + hourMs,
        attendees: [{ email: prospectEmail }],
      },
    },
    {
      type: "meeting.scheduled",
      occurredAt: now - 2 * dayMs,
      data: { meetingId: "demo-planning", title: "Quarterly planning", startTimeMs: now + dayMs },
    },
    { type: "meeting.cancelled", occurredAt: now - dayMs, data: { meetingId: "demo-planning" } },
  ];
  const callStart = now - 5 * hourMs;
  const calls = [
    {
      type: "call.started",
      occurredAt: callStart,
      data: {
        callId: "demo-call-1",
        title: "Call with Gavin Belson",
        participants: [{ email: prospectEmail, name: "Gavin Belson" }],
      },
    },
    { type: "call.ended", occurredAt: callStart + 14 * 60_000, data: { callId: "demo-call-1", durationSec: 840 } },
    {
      type: "call.recording_ready",
      occurredAt: callStart + 20 * 60_000,
      data: { callId: "demo-call-1", recordingId: "demo-call-rec-1" },
    },
  ];
  return { notes, calls };
}

/**
 * The demo meetings of a workspace (DESIGN.md section 13), produced as a provider would: a
 * meeting-notes and a calling connection are created with the owner's key, then signed events go
 * through the real inbound route, pipeline and region, which resolves participants, turns action
 * items into tasks and announces the events. Runs once: a workspace with connections is left as is.
 */
export async function seedDemoMeetings(call: GatewayCall, place: MeetingsSeedPlace, now = Date.now()): Promise<void> {
  const api = `${place.origin}/api/v1`;
  const owner = { authorization: `Bearer ${place.ownerKey}` };
  const existing = await runAsClient<{ data: unknown[] }>(
    call,
    operations.listConnections,
    `${api}/integrations/connections?workspaceId=${place.workspaceId}`,
    { headers: owner },
  );
  if (existing.data.length > 0) return;
  const connect = (provider: "meeting_notes" | "calling", name: string) =>
    runAsClient<{ connection: { id: string; inboundUrl: string }; secret: string }>(
      call,
      operations.createConnection,
      `${api}/integrations/connections`,
      {
        headers: owner,
        body: JSON.stringify({ workspaceId: place.workspaceId, provider, name }),
      },
    );
  const notetaker = await connect("meeting_notes", "Demo notetaker");
  const phone = await connect("calling", "Demo phone");
  const { notes, calls } = demoEvents(place, now);
  const deliveries = [
    ...notes.map((event) => ({ event, connection: notetaker, operation: operations.receiveMeetingNotesEvent })),
    ...calls.map((event) => ({ event, connection: phone, operation: operations.receiveCallingEvent })),
  ];
  for (const [index, { event, connection, operation }] of deliveries.entries()) {
    const body = JSON.stringify(event);
    const headers = await webhookHeaders([connection.secret], `msg_demo_${index}`, Math.floor(Date.now() / 1000), body);
    await runAsClient(call, operation, connection.connection.inboundUrl, { headers, body });
  }
}
