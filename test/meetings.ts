import { Webhook } from "standardwebhooks";
import { expectStatus, unique } from "./crm";
import { call } from "./stack";

/** Test helpers for provider connections and their signed inbound webhooks. */

export interface Connection {
  id: string;
  workspaceId: string;
  provider: "meeting_notes" | "calling";
  name: string;
  inboundUrl: string;
  createdAt: number;
  secretRotatedAt: number | null;
}

export interface Participant {
  id: string;
  name: string | null;
  email: string | null;
  isHost: boolean;
  fromCalendarInvitee: boolean;
  fromRealtimeParticipant: boolean;
  resolvedRecordId: string | null;
}

export interface Meeting {
  id: string;
  workspaceId: string;
  title: string;
  startTimeMs: number;
  endTimeMs: number | null;
  eventState: string;
  hasTranscript: boolean;
  transcriptStatus: string;
  recordingStatus: string | null;
  callRecordingId: string | null;
  callStatus: string | null;
  durationSec: number | null;
  startedAtMs: number | null;
  endedAtMs: number | null;
  attendeeEmails: string[];
  participants: Participant[];
  updatedAt: number;
}

export async function connect(
  key: string,
  workspaceId: string,
  provider: Connection["provider"] = "meeting_notes",
  name = "Notetaker",
) {
  return expectStatus<{ connection: Connection; secret: string }>(201, "/integrations/connections", {
    method: "POST",
    key,
    json: { workspaceId, provider, name },
  });
}

/** The path of a connection's inbound URL under `{base_url}`. */
export const inboundPath = (connection: Connection) => new URL(connection.inboundUrl).pathname.replace(/^\/api\/v1/, "");

export interface DeliveryOptions {
  webhookId?: string;
  /** Signing time; now unless a test makes it stale. */
  at?: Date;
  /** Sent as is instead of the JSON of the event. */
  rawBody?: string;
  headers?: Record<string, string>;
}

/** Posts an event to a connection's inbound URL, signed with `secret` by the `standardwebhooks` library. */
export function deliver(path: string, secret: string, event: unknown, options: DeliveryOptions = {}) {
  const body = options.rawBody ?? JSON.stringify(event);
  const webhookId = options.webhookId ?? `msg_${unique()}${unique()}`;
  const at = options.at ?? new Date();
  const signature = new Webhook(secret).sign(webhookId, at, body);
  return call(path, {
    method: "POST",
    body,
    headers: {
      "content-type": "application/json",
      "webhook-id": webhookId,
      "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
      "webhook-signature": signature,
      ...options.headers,
    },
  });
}

export async function expectReceived(response: Response) {
  const text = await response.text();
  if (response.status !== 200) throw new Error(`expected 200, got ${response.status}: ${text}`);
  return JSON.parse(text) as { received: true };
}

export const meetingsOf = async (key: string, workspaceId: string, query = "") =>
  (await expectStatus<{ data: Meeting[] }>(200, `/meetings?workspaceId=${workspaceId}${query}`, { key })).data;

export const meetingById = async (key: string, meetingId: string) =>
  (await expectStatus<{ meeting: Meeting }>(200, `/meetings/${meetingId}`, { key })).meeting;

/** The meeting a provider id became, found through the list (provider ids are not exposed). */
export async function meetingTitled(key: string, workspaceId: string, title: string) {
  const found = (await meetingsOf(key, workspaceId, "&limit=100")).find((meeting) => meeting.title === title);
  if (!found) throw new Error(`no meeting titled ${title}`);
  return found;
}

/** A person record in the workspace with a fresh address, for participant matching. */
export async function createPerson(key: string, peopleTypeId: string, name: string) {
  const email = `${name.toLowerCase().replace(/\W+/g, ".")}.${unique()}@guests.example`;
  const { record } = await expectStatus<{ record: { id: string } }>(201, "/records", {
    method: "POST",
    key,
    json: { objectTypeId: peopleTypeId, fields: { name, email } },
  });
  return { id: record.id, email };
}
