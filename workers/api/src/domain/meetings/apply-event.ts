import type { ProviderEvent } from "@crm/contracts";
import { newId, regional } from "@crm/db";
import { and, eq } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Database } from "../../database";
import { changedKeys, type EventSource, eventStatement } from "../events";
import { peopleByEmail } from "../inbox/attendees";
import { objectTypeOfRecord } from "../records/object-type-of";
import { sourceManagedTaskStatements } from "../tasks/service";
import { type MeetingRow, meetingResponse, type ParticipantRow, participantsOf } from "./meetings";

const { meetings, meetingParticipants, meetingActionItems } = regional;

/** The connection a delivery came through, with the organization its workspace belongs to. */
export interface DeliveringConnection {
  id: string;
  workspaceId: string;
  organizationId: string;
}

/** What one provider event does: the statements of its effects, or nothing when it is older than what is stored. */
export interface AppliedEvent {
  outcome: "applied" | "stale";
  statements: BatchItem<"sqlite">[];
}

/** A participant as an event describes it, before it is merged with what is stored. */
interface ParticipantChange {
  key: string;
  name?: string | undefined;
  email?: string | undefined;
  isHost?: boolean | undefined;
  fromCalendarInvitee?: boolean;
  fromRealtimeParticipant?: boolean;
}

const normalizedEmail = (email: string) => email.trim().toLowerCase();
/** One row per address; a participant the provider knows without one is keyed by its provider id. */
const participantKey = (email: string | undefined, providerId?: string) =>
  email ? `email:${normalizedEmail(email)}` : `id:${providerId}`;

function stubMeeting(
  connection: DeliveringConnection,
  source: MeetingRow["source"],
  externalId: string,
  at: number,
  now: number,
): MeetingRow {
  return {
    id: newId("mtg", now),
    workspaceId: connection.workspaceId,
    source,
    externalId,
    title: source === "calling" ? "Call" : "",
    description: "",
    startTimeMs: at,
    endTimeMs: null,
    timezone: null,
    isAllDay: false,
    meetingUrl: null,
    organizerEmail: null,
    attendeeEmails: [],
    eventState: "active",
    hasTranscript: false,
    recordingStatus: null,
    callRecordingId: null,
    callStatus: null,
    durationSec: null,
    startedAtMs: null,
    endedAtMs: null,
    detailsAt: null,
    recordingAt: null,
    callAt: null,
    createdAt: now,
    updatedAt: now,
  };
}

/** Newer or as new as what is stored: an event at the same time as the stored state still applies (a correction). */
const isCurrent = (storedAt: number | null, at: number) => storedAt === null || storedAt <= at;

/**
 * The meeting after the event, and the participants it names. Each group of fields moves only
 * forward: schedule details by `detailsAt`, recording by `recordingAt`; a transcript, once there,
 * stays, and an ended call stays ended.
 */
function nextMeeting(row: MeetingRow, event: ProviderEvent): { meeting: MeetingRow; participants: ParticipantChange[] } {
  const at = event.occurredAt;
  switch (event.type) {
    case "meeting.scheduled":
    case "meeting.updated":
    case "meeting.cancelled": {
      if (!isCurrent(row.detailsAt, at)) return { meeting: row, participants: [] };
      const details = event.data;
      const attendees = details.attendees ?? [];
      const organizer = details.organizerEmail ? normalizedEmail(details.organizerEmail) : row.organizerEmail;
      return {
        meeting: {
          ...row,
          title: details.title ?? row.title,
          description: details.description ?? row.description,
          startTimeMs: details.startTimeMs ?? row.startTimeMs,
          endTimeMs: details.endTimeMs ?? row.endTimeMs,
          timezone: details.timezone ?? row.timezone,
          isAllDay: details.isAllDay ?? row.isAllDay,
          meetingUrl: details.meetingUrl ?? row.meetingUrl,
          organizerEmail: organizer,
          attendeeEmails: details.attendees
            ? [...new Set(attendees.map((attendee) => normalizedEmail(attendee.email)))]
            : row.attendeeEmails,
          eventState: event.type === "meeting.cancelled" ? "cancelled" : "active",
          detailsAt: at,
        },
        participants: attendees.map((attendee) => ({
          key: participantKey(attendee.email),
          name: attendee.name,
          email: normalizedEmail(attendee.email),
          isHost: organizer === normalizedEmail(attendee.email) ? true : undefined,
          fromCalendarInvitee: true,
        })),
      };
    }
    case "participants.updated":
      return {
        meeting: row,
        participants: event.data.participants.map((participant) => ({
          key: participantKey(participant.email, participant.id),
          name: participant.name,
          email: participant.email === undefined ? undefined : normalizedEmail(participant.email),
          isHost: participant.isHost,
          fromRealtimeParticipant: participant.joined ?? true,
        })),
      };
    case "recording.status_changed":
      if (!isCurrent(row.recordingAt, at)) return { meeting: row, participants: [] };
      return {
        meeting: {
          ...row,
          recordingStatus: event.data.status,
          callRecordingId: event.data.recordingId ?? row.callRecordingId,
          recordingAt: at,
        },
        participants: [],
      };
    case "transcript.ready":
      return { meeting: { ...row, hasTranscript: true }, participants: [] };
    case "call.started": {
      // The start (title, start time) moves only forward: an older start than the stored one changes none of it.
      const startCurrent = isCurrent(row.startedAtMs, at);
      const stillRunning = row.callStatus !== "ended" && isCurrent(row.callAt, at);
      // A start that arrives after its call ended completes the duration the end could not measure.
      const durationSec =
        row.durationSec === null && row.endedAtMs !== null && startCurrent
          ? Math.max(0, Math.round((row.endedAtMs - at) / 1000))
          : row.durationSec;
      return {
        meeting: {
          ...row,
          ...(startCurrent ? { title: event.data.title ?? row.title, startTimeMs: at, startedAtMs: at, durationSec } : {}),
          callStatus: stillRunning ? "in_progress" : row.callStatus,
          callAt: stillRunning ? at : row.callAt,
        },
        participants: (event.data.participants ?? []).map((participant) => ({
          key: participantKey(participant.email),
          name: participant.name,
          email: normalizedEmail(participant.email),
          fromRealtimeParticipant: true,
        })),
      };
    }
    case "call.ended": {
      // An end older than the one stored is stale: the later end keeps its time and duration.
      if (!isCurrent(row.endedAtMs, at)) return { meeting: row, participants: [] };
      const measured = row.startedAtMs === null ? null : Math.max(0, Math.round((at - row.startedAtMs) / 1000));
      return {
        meeting: {
          ...row,
          endTimeMs: at,
          endedAtMs: at,
          durationSec: event.data.durationSec ?? measured,
          callStatus: "ended",
          callAt: Math.max(at, row.callAt ?? at),
        },
        participants: [],
      };
    }
    case "call.recording_ready":
      if (!isCurrent(row.recordingAt, at)) return { meeting: row, participants: [] };
      return {
        meeting: { ...row, callRecordingId: event.data.recordingId, recordingStatus: "available", recordingAt: at },
        participants: [],
      };
  }
}

/** Stored participants after the event's changes: flags only ever gain, a participant row moves only forward in time. */
function mergeParticipants(
  meeting: MeetingRow,
  stored: ParticipantRow[],
  changes: ParticipantChange[],
  people: Map<string, string>,
  at: number,
  now: number,
): { all: ParticipantRow[]; changed: ParticipantRow[] } {
  const byKey = new Map(stored.map((row) => [row.participantKey, row]));
  const changed: ParticipantRow[] = [];
  for (const change of changes) {
    const before = byKey.get(change.key);
    if (before && before.changedAt > at) continue;
    const email = change.email ?? before?.email ?? null;
    const after: ParticipantRow = {
      id: before?.id ?? newId("mpt", now),
      meetingId: meeting.id,
      workspaceId: meeting.workspaceId,
      participantKey: change.key,
      name: change.name ?? before?.name ?? null,
      email,
      isHost: change.isHost ?? before?.isHost ?? false,
      invitationStatus: before?.invitationStatus ?? null,
      fromCalendarInvitee: (change.fromCalendarInvitee ?? false) || (before?.fromCalendarInvitee ?? false),
      fromRealtimeParticipant: (change.fromRealtimeParticipant ?? false) || (before?.fromRealtimeParticipant ?? false),
      resolvedRecordId: (email && people.get(email)) || before?.resolvedRecordId || null,
      callRecordingId: meeting.callRecordingId ?? before?.callRecordingId ?? null,
      changedAt: at,
      createdAt: before?.createdAt ?? now,
    };
    byKey.set(change.key, after);
    changed.push(after);
  }
  return { all: [...byKey.values()], changed };
}

/**
 * The person record an action item's task hangs on: the assignee's, else the first resolved
 * participant on the other side of the meeting. The region knows no user's address, so hosts and
 * the organizer count as the workspace's own side.
 */
function taskRecordOf(
  assigneeEmail: string | undefined,
  meeting: MeetingRow,
  participants: ParticipantRow[],
  people: Map<string, string>,
): string | null {
  const assignee = assigneeEmail ? people.get(normalizedEmail(assigneeEmail)) : undefined;
  if (assignee) return assignee;
  const guest = participants.find(
    (participant) => participant.resolvedRecordId && !participant.isHost && participant.email !== meeting.organizerEmail,
  );
  return guest?.resolvedRecordId ?? null;
}

/** Action items not turned into tasks before: one task each, on a person record, linked to the meeting. */
async function actionItemStatements(
  db: Database,
  connection: DeliveringConnection,
  meeting: MeetingRow,
  participants: ParticipantRow[],
  event: Extract<ProviderEvent, { type: "transcript.ready" }>,
  now: number,
): Promise<{ taskIds: string[]; statements: BatchItem<"sqlite">[] }> {
  const known = await db
    .select({ externalId: meetingActionItems.externalId, taskId: meetingActionItems.taskId })
    .from(meetingActionItems)
    .where(eq(meetingActionItems.meetingId, meeting.id));
  const taskIds = known.map((item) => item.taskId);
  const done = new Set(known.map((item) => item.externalId));
  const fresh = event.data.actionItems.filter((item) => !done.has(item.id));
  const assignees = fresh.flatMap((item) => (item.assigneeEmail ? [normalizedEmail(item.assigneeEmail)] : []));
  const people = await peopleByEmail(db, meeting.workspaceId, [...new Set(assignees)]);
  const objectTypes = new Map<string, string | null>();
  const statements: BatchItem<"sqlite">[] = [];
  for (const item of fresh) {
    const recordId = taskRecordOf(item.assigneeEmail, meeting, participants, people);
    // An item whose person matches no record has nowhere to hang; it is recorded once a later delivery can place it.
    if (!recordId) continue;
    if (!objectTypes.has(recordId)) objectTypes.set(recordId, await objectTypeOfRecord(db, recordId));
    const { task, statements: taskStatements } = sourceManagedTaskStatements(
      db,
      {
        workspaceId: meeting.workspaceId,
        organizationId: connection.organizationId,
        objectTypeId: objectTypes.get(recordId) ?? null,
        recordId,
        title: item.text,
        dueAt: item.dueAt ?? null,
        source: { resourceType: "meeting", resourceId: meeting.id },
        link: { label: (meeting.title || "Meeting").slice(0, 255), channel: "meeting" },
      },
      now,
    );
    taskIds.push(task.id);
    statements.push(
      db.insert(meetingActionItems).values({ meetingId: meeting.id, externalId: item.id, taskId: task.id, createdAt: now }),
      ...taskStatements,
    );
  }
  return { taskIds, statements };
}

/**
 * The statements that apply one verified provider event to the connection's workspace: the meeting
 * (inserted, or updated by its provider id), its participants (matched to people records by
 * e-mail), tasks for new action items, and `meeting.updated` or `meeting.transcript_ready`. A
 * meeting first named by a later kind of event (a transcript before its schedule) is created from it.
 */
export async function applyProviderEvent(
  db: Database,
  connection: DeliveringConnection,
  event: ProviderEvent,
  now = Date.now(),
): Promise<AppliedEvent> {
  const source = event.type.startsWith("call.") ? "calling" : "meeting_notes";
  const externalId = "callId" in event.data ? event.data.callId : event.data.meetingId;
  const [existing] = await db
    .select()
    .from(meetings)
    .where(
      and(eq(meetings.workspaceId, connection.workspaceId), eq(meetings.source, source), eq(meetings.externalId, externalId)),
    )
    .limit(1);
  const before = existing ?? stubMeeting(connection, source, externalId, event.occurredAt, now);
  const stored = existing ? ((await participantsOf(db, [existing.id])).get(existing.id) ?? []) : [];
  const { meeting: proposed, participants: changes } = nextMeeting(before, event);
  const emails = changes.flatMap((change) => (change.email ? [change.email] : []));
  const people = await peopleByEmail(db, connection.workspaceId, [...new Set(emails)]);
  const { all, changed } = mergeParticipants(proposed, stored, changes, people, event.occurredAt, now);
  const meetingChanged = JSON.stringify(proposed) !== JSON.stringify(before);
  if (existing && !meetingChanged && changed.length === 0 && event.type !== "transcript.ready")
    return { outcome: "stale", statements: [] };

  const after: MeetingRow = { ...proposed, updatedAt: now };
  const statements: BatchItem<"sqlite">[] = [
    existing ? db.update(meetings).set(after).where(eq(meetings.id, after.id)) : db.insert(meetings).values(after),
    ...changed.map((participant) =>
      db
        .insert(meetingParticipants)
        .values(participant)
        .onConflictDoUpdate({ target: [meetingParticipants.meetingId, meetingParticipants.participantKey], set: participant }),
    ),
  ];
  const eventSource: EventSource = { organizationId: connection.organizationId, actor: { type: "system", id: connection.id } };
  const resource = meetingResponse(after, all);
  if (event.type === "transcript.ready") {
    const items = await actionItemStatements(db, connection, after, all, event, now);
    // The same transcript again (under another webhook-id) with no new action item changes nothing.
    if (existing?.hasTranscript && items.statements.length === 0 && changed.length === 0)
      return { outcome: "stale", statements: [] };
    statements.push(...items.statements);
    statements.push(
      eventStatement(
        db,
        eventSource,
        {
          type: "meeting.transcript_ready",
          workspaceId: after.workspaceId,
          data: { ...resource, actionItemTaskIds: items.taskIds },
        },
        now,
      ),
    );
    return { outcome: "applied", statements };
  }
  const previous = meetingResponse(before, stored);
  const changedFields = changedKeys(resource, previous, resource).filter((key) => key !== "updatedAt");
  statements.push(
    eventStatement(
      db,
      eventSource,
      { type: "meeting.updated", workspaceId: after.workspaceId, data: { ...resource, changedFields } },
      now,
    ),
  );
  return { outcome: "applied", statements };
}
