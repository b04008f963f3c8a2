import { z } from "@hono/zod-openapi";
import { integer, timestampMs } from "../ids";

/**
 * The events a meeting-notes or calling provider posts to its connection's inbound URL (DESIGN.md
 * section 9): an envelope `{ type, occurredAt, data }`. Ids inside `data` are the provider's own;
 * meetings, participants and action items are upserted by them, and `occurredAt` decides which of
 * two changes of the same thing is the newer one.
 */

const providerId = (description: string) => z.string().min(1).max(255).openapi({ description, example: "prov_meeting_42" });
const email = z.string().email().max(320);
const text = (max: number) => z.string().max(max);

const envelope = <T extends string, D extends z.ZodType>(type: T, data: D, description: string) =>
  z
    .object({
      type: z.literal(type),
      occurredAt: timestampMs.openapi({ description: "When the change happened at the provider, Unix ms" }),
      data,
    })
    .openapi({ description });

const meetingDetails = z
  .object({
    meetingId: providerId("The provider's meeting id"),
    title: text(255).optional(),
    description: text(10_000).optional(),
    startTimeMs: timestampMs.optional(),
    endTimeMs: timestampMs.optional(),
    timezone: text(64).optional(),
    isAllDay: z.boolean().optional(),
    meetingUrl: z.string().url().max(2048).optional(),
    organizerEmail: email.optional(),
    attendees: z
      .array(z.object({ email, name: text(255).optional() }))
      .max(200)
      .optional(),
  })
  .openapi("ProviderMeetingDetails");

const participants = z.object({
  meetingId: providerId("The provider's meeting id"),
  participants: z
    .array(
      z.object({
        id: providerId("The provider's participant id"),
        name: text(255).optional(),
        email: email.optional(),
        isHost: z.boolean().optional(),
        joined: z.boolean().optional().openapi({ description: "Whether they joined the call itself" }),
      }),
    )
    .max(200),
});

export const recordingStatuses = ["processing", "available", "failed", "deleted"] as const;

const recordingStatus = z.object({
  meetingId: providerId("The provider's meeting id"),
  recordingId: providerId("The provider's recording id").optional(),
  status: z.enum(recordingStatuses),
});

const transcriptReady = z.object({
  meetingId: providerId("The provider's meeting id"),
  actionItems: z
    .array(
      z.object({
        id: providerId("The provider's action item id: one task per id, however often it is delivered"),
        text: z.string().trim().min(1).max(255),
        assigneeEmail: email.optional(),
        dueAt: timestampMs.optional(),
      }),
    )
    .max(100),
});

const callStarted = z.object({
  callId: providerId("The provider's call id; the call is a meeting of the workspace"),
  title: text(255).optional(),
  participants: z
    .array(z.object({ email, name: text(255).optional() }))
    .max(50)
    .optional(),
});
const callEnded = z.object({
  callId: providerId("The provider's call id"),
  durationSec: integer(0, 604_800).optional(),
});
const callRecordingReady = z.object({
  callId: providerId("The provider's call id"),
  recordingId: providerId("The provider's recording id"),
});

export const meetingNotesEventSchema = z
  .discriminatedUnion("type", [
    envelope("meeting.scheduled", meetingDetails, "A meeting was planned"),
    envelope("meeting.updated", meetingDetails, "A meeting's details changed"),
    envelope("meeting.cancelled", meetingDetails, "A meeting was cancelled"),
    envelope("participants.updated", participants, "Who is in the meeting"),
    envelope("recording.status_changed", recordingStatus, "The recording's state"),
    envelope("transcript.ready", transcriptReady, "The transcript exists; each action item becomes one task"),
  ])
  .openapi("MeetingNotesEvent", {
    example: { type: "meeting.scheduled", occurredAt: 1764000000000, data: { meetingId: "prov_meeting_42" } },
  });

export const callingEventSchema = z
  .discriminatedUnion("type", [
    envelope("call.started", callStarted, "A call started"),
    envelope("call.ended", callEnded, "A call ended"),
    envelope("call.recording_ready", callRecordingReady, "A call's recording is available"),
  ])
  .openapi("CallingEvent", {
    example: { type: "call.started", occurredAt: 1764000000000, data: { callId: "prov_call_7" } },
  });

export type MeetingNotesEvent = z.infer<typeof meetingNotesEventSchema>;
export type CallingEvent = z.infer<typeof callingEventSchema>;
export type ProviderEvent = MeetingNotesEvent | CallingEvent;

/** Any envelope: what is read first, so that an event type this version does not know is recorded and ignored. */
export const providerEnvelopeSchema = z.object({ type: z.string().min(1).max(100), occurredAt: timestampMs, data: z.unknown() });
