import { z } from "@hono/zod-openapi";
import { idSchema, integer, pathId, timestampMs } from "../ids";
import { costUnits, defineOperation, jsonResponse } from "../operation";
import { listResponse, pageQuery, queryInteger } from "../pagination";
import { outputText } from "../strings";

export const meetingEventStates = ["active", "cancelled", "deleted"] as const;

export const meetingParticipantSchema = z
  .object({
    id: idSchema("mpt"),
    name: outputText().nullable(),
    email: outputText(320).nullable(),
    isHost: z.boolean(),
    invitationStatus: outputText(32).nullable(),
    fromCalendarInvitee: z.boolean(),
    fromRealtimeParticipant: z.boolean(),
    resolvedRecordId: idSchema("rec")
      .nullable()
      .openapi({ description: "The workspace's person record whose e-mail is the participant's; null when none matches" }),
    callRecordingId: outputText().nullable(),
  })
  .openapi("MeetingParticipant");

export const meetingSchema = z
  .object({
    id: idSchema("mtg"),
    workspaceId: idSchema("ws"),
    startTimeMs: timestampMs,
    eventState: z.enum(meetingEventStates),
    botPlannedAction: outputText(32),
    hasTranscript: z.boolean(),
    participants: z.array(meetingParticipantSchema).max(400),
    createdAt: timestampMs,
    updatedAt: timestampMs,
    title: outputText(),
    description: outputText(10_000),
    endTimeMs: timestampMs.nullable(),
    timezone: outputText(64).nullable(),
    isAllDay: z.boolean(),
    meetingUrl: outputText(2048).nullable(),
    organizerEmail: outputText(320).nullable(),
    attendeeEmails: z.array(outputText(320)).max(200),
    botPlannedReason: outputText().nullable(),
    callRecordingId: outputText().nullable(),
    callStatus: z.enum(["in_progress", "ended"]).nullable().openapi({ description: "Calls only" }),
    recordingStatus: outputText(32).nullable(),
    transcriptStatus: z.enum(["pending", "ready"]),
    durationSec: integer(0, 604_800).nullable(),
    startedAtMs: timestampMs.nullable(),
    endedAtMs: timestampMs.nullable(),
  })
  .openapi("Meeting");

export type Meeting = z.infer<typeof meetingSchema>;

export const listMeetings = defineOperation({
  operationId: "listMeetings",
  tag: "Meetings",
  summary: "List meetings",
  description:
    "The workspace's meetings and calls, newest start first (`startTimeMs` descending, then id), with participants. `startAfterMs` and `startBeforeMs` bound the start time (exclusive); `recordId` keeps the meetings one of whose participants resolved to that record.",
  scope: "meetings:read",
  costUnits: costUnits.read,
  mcpTool: "meetings_list",
  method: "get",
  path: "/meetings",
  request: {
    query: z
      .object({
        workspaceId: idSchema("ws").openapi({ param: { name: "workspaceId", in: "query" } }),
        eventState: z
          .enum(meetingEventStates)
          .optional()
          .openapi({ param: { name: "eventState", in: "query" } }),
        startAfterMs: queryInteger("startAfterMs", 0, 8_640_000_000_000_000).optional(),
        startBeforeMs: queryInteger("startBeforeMs", 0, 8_640_000_000_000_000).optional(),
        recordId: idSchema("rec")
          .optional()
          .openapi({ param: { name: "recordId", in: "query" } }),
        ...pageQuery,
      })
      .strict(),
  },
  responses: { 200: jsonResponse("A page of meetings", listResponse(meetingSchema)) },
});

export const getMeeting = defineOperation({
  operationId: "getMeeting",
  tag: "Meetings",
  summary: "Get a meeting",
  description: "One meeting or call with its participants.",
  scope: "meetings:read",
  costUnits: costUnits.read,
  mcpTool: "meetings_get",
  singleResource: true,
  method: "get",
  path: "/meetings/{meetingId}",
  request: { params: z.object({ meetingId: pathId("meetingId", "mtg") }) },
  responses: { 200: jsonResponse("The meeting", z.object({ meeting: meetingSchema })) },
});
