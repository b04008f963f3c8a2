// Sends one provider event to a connection's inbound URL, signed as Standard Webhooks with the
// connection's secret (the `standardwebhooks` library, as a provider would), and prints the answer.
// For trying the meeting-notes and calling routes against the dev stack:
//
//   node scripts/send-provider-event.mjs --url <connection.inboundUrl> --secret <whsec_…> \
//     (--example <type> [--meeting <provider meeting or call id>] | --file <event.json> | --json '<event>') \
//     [--attendee <e-mail>] [--webhook-id <id>]
//
// --example builds a sample event of a type (meeting.scheduled, meeting.updated, meeting.cancelled,
// participants.updated, recording.status_changed, transcript.ready (two action items), call.started,
// call.ended, call.recording_ready) with --attendee as the guest (and the action items' assignee):
// give the e-mail of a person record of the workspace, since an action item becomes a task on the
// person it names. Sending the same --webhook-id again is a repeat: answered 200, applied once.
// Exit code 1 when the API refuses the event.
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { Webhook } from "standardwebhooks";

const { values } = parseArgs({
  options: {
    url: { type: "string" },
    secret: { type: "string" },
    example: { type: "string" },
    meeting: { type: "string", default: "demo-meeting-1" },
    attendee: { type: "string", default: "customer@example.com" },
    file: { type: "string" },
    json: { type: "string" },
    "webhook-id": { type: "string" },
  },
});

function usage(message) {
  console.error(
    `${message}\nUsage: node scripts/send-provider-event.mjs --url <inboundUrl> --secret <whsec_…> (--example <type> | --file <event.json> | --json '<event>') [--meeting <id>] [--webhook-id <id>]`,
  );
  process.exit(2);
}

const hourMs = 3_600_000;

/** A sample event of each type, about the meeting (or call) `id`, with `guest` as the other side. */
function example(type, id, guest) {
  const now = Date.now();
  const details = {
    meetingId: id,
    title: "Demo call with a customer",
    startTimeMs: now + hourMs,
    endTimeMs: now + 2 * hourMs,
    timezone: "Europe/Berlin",
    meetingUrl: "https://meet.example/demo",
    attendees: [{ email: guest, name: "A Customer" }],
  };
  const data = {
    "meeting.scheduled": details,
    "meeting.updated": details,
    "meeting.cancelled": { meetingId: id },
    "participants.updated": {
      meetingId: id,
      participants: [{ id: "participant-1", email: guest, name: "A Customer", joined: true }],
    },
    "recording.status_changed": { meetingId: id, recordingId: "recording-1", status: "available" },
    "transcript.ready": {
      meetingId: id,
      actionItems: [
        { id: "action-1", text: "Send the proposal", assigneeEmail: guest, dueAt: now + 7 * 24 * hourMs },
        { id: "action-2", text: "Book a follow-up call" },
      ],
    },
    "call.started": { callId: id, title: "Call with a customer", participants: [{ email: guest }] },
    "call.ended": { callId: id, durationSec: 300 },
    "call.recording_ready": { callId: id, recordingId: "call-recording-1" },
  }[type];
  if (!data) usage(`Unknown example type ${type}`);
  return { type, occurredAt: now, data };
}

if (!values.url || !values.secret) usage("--url and --secret are required");
const body = values.example
  ? JSON.stringify(example(values.example, values.meeting, values.attendee))
  : values.file
    ? readFileSync(values.file, "utf8")
    : (values.json ?? usage("Give --example, --file or --json"));
const webhookId = values["webhook-id"] ?? `msg_${randomUUID().replaceAll("-", "")}`;
const at = new Date();
const response = await fetch(values.url, {
  method: "POST",
  headers: {
    "content-type": "application/json",
    "webhook-id": webhookId,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": new Webhook(values.secret).sign(webhookId, at, body),
  },
  body,
});
console.log(`webhook-id ${webhookId} → ${response.status} ${await response.text()}`);
process.exit(response.ok ? 0 : 1);
