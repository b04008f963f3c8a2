import type { Meeting, operations } from "@crm/contracts";
import { regional, rowsPerStatement } from "@crm/db";
import { and, asc, eq, gt, inArray, lt, type SQL, sql } from "drizzle-orm";
import { loadInWorkspaceWith, reachWorkspace } from "../../access";
import type { Database } from "../../database";
import type { ServiceContext } from "../../env";
import type { QueryOf } from "../../inputs";
import { type KeysetColumn, paginate } from "../../pagination";

const { meetings, meetingParticipants } = regional;
export type MeetingRow = typeof meetings.$inferSelect;
export type ParticipantRow = typeof meetingParticipants.$inferSelect;

/** What the bot does with a meeting: this version records every meeting it is told about. */
const botPlannedAction = "record";

export const meetingResponse = (row: MeetingRow, participants: ParticipantRow[]): Meeting => ({
  id: row.id,
  workspaceId: row.workspaceId,
  startTimeMs: row.startTimeMs,
  eventState: row.eventState,
  botPlannedAction,
  hasTranscript: row.hasTranscript,
  participants: participants.map((participant) => ({
    id: participant.id,
    name: participant.name,
    email: participant.email,
    isHost: participant.isHost,
    invitationStatus: participant.invitationStatus,
    fromCalendarInvitee: participant.fromCalendarInvitee,
    fromRealtimeParticipant: participant.fromRealtimeParticipant,
    resolvedRecordId: participant.resolvedRecordId,
    callRecordingId: participant.callRecordingId,
  })),
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
  title: row.title,
  description: row.description,
  endTimeMs: row.endTimeMs,
  timezone: row.timezone,
  isAllDay: row.isAllDay,
  meetingUrl: row.meetingUrl,
  organizerEmail: row.organizerEmail,
  attendeeEmails: row.attendeeEmails,
  botPlannedReason: null,
  callRecordingId: row.callRecordingId,
  callStatus: row.callStatus,
  recordingStatus: row.recordingStatus,
  transcriptStatus: row.hasTranscript ? "ready" : "pending",
  durationSec: row.durationSec,
  startedAtMs: row.startedAtMs,
  endedAtMs: row.endedAtMs,
});

/** The participants of some meetings, by meeting, in the order they were first seen. */
export async function participantsOf(db: Database, meetingIds: string[]): Promise<Map<string, ParticipantRow[]>> {
  const byMeeting = new Map<string, ParticipantRow[]>(meetingIds.map((id) => [id, []]));
  // Chunks keep each query under D1's 100 bound parameters.
  for (const chunk of rowsPerStatement(meetingIds, 2)) {
    if (chunk.length === 0) continue;
    const rows = await db
      .select()
      .from(meetingParticipants)
      .where(inArray(meetingParticipants.meetingId, chunk))
      .orderBy(asc(meetingParticipants.createdAt), asc(meetingParticipants.id));
    for (const row of rows) byMeeting.get(row.meetingId)?.push(row);
  }
  return byMeeting;
}

export async function readMeeting({ db, actor }: ServiceContext, meetingId: string): Promise<Meeting> {
  const [row, participants] = await loadInWorkspaceWith(
    db,
    actor,
    meetings,
    meetingId,
    { what: "Meeting" },
    async (found) => (await participantsOf(db, [found.id])).get(found.id) ?? [],
  );
  return meetingResponse(row, participants);
}

/** Newest start first, then id: the order DESIGN.md section 2 gives meetings. */
export const meetingOrder: KeysetColumn<MeetingRow>[] = [
  { column: meetings.startTimeMs, direction: "desc", valueIn: (row) => row.startTimeMs },
  { column: meetings.id, direction: "desc", valueIn: (row) => row.id },
];

/**
 * The list query. Plan (checked in test/meetings-api.test.ts): the workspace's meetings are read in
 * list order from `meetings_workspace_start` (or `meetings_workspace_state_start` with `eventState`),
 * so a page stops after `limit + 1` matches without sorting; `recordId` is probed per meeting through
 * `meeting_participants_record`.
 */
export type MeetingFilter = Omit<QueryOf<typeof operations.listMeetings>, "limit" | "cursor">;

export function meetingPage(
  db: Database,
  filter: MeetingFilter,
  page: { after: SQL | undefined; orderBy: SQL[]; limit: number },
) {
  const { workspaceId, eventState, startAfterMs, startBeforeMs, recordId } = filter;
  return db
    .select()
    .from(meetings)
    .where(
      and(
        eq(meetings.workspaceId, workspaceId),
        eventState === undefined ? undefined : eq(meetings.eventState, eventState),
        startAfterMs === undefined ? undefined : gt(meetings.startTimeMs, startAfterMs),
        startBeforeMs === undefined ? undefined : lt(meetings.startTimeMs, startBeforeMs),
        recordId === undefined
          ? undefined
          : sql`exists (select 1 from ${meetingParticipants} where ${meetingParticipants.resolvedRecordId} = ${recordId} and ${meetingParticipants.meetingId} = ${meetings.id})`,
        page.after,
      ),
    )
    .orderBy(...page.orderBy)
    .limit(page.limit);
}

export async function listMeetingsOf(context: ServiceContext, query: QueryOf<typeof operations.listMeetings>) {
  const { db, actor, cursorSecret } = context;
  const { workspaceId, eventState, startAfterMs, startBeforeMs, recordId, limit, cursor } = query;
  await reachWorkspace(db, actor, workspaceId, { what: "Workspace" });
  const page = await paginate<MeetingRow>(
    {
      scope: `meetings:${workspaceId}:${eventState ?? ""}:${startAfterMs ?? ""}:${startBeforeMs ?? ""}:${recordId ?? ""}`,
      limit,
      cursor,
      order: meetingOrder,
      fetch: (page) => meetingPage(db, query, page),
    },
    cursorSecret,
  );
  const participants = await participantsOf(
    db,
    page.data.map((row) => row.id),
  );
  return {
    data: page.data.map((row) => meetingResponse(row, participants.get(row.id) ?? [])),
    pagination: page.pagination,
  };
}
