import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * A provider's connection to a workspace: its Standard Webhooks secret verifies what the provider
 * posts; after a rotation the previous secret is accepted until `previousSecretExpiresAt`.
 */
export const integrationConnections = sqliteTable(
  "integration_connections",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    provider: text("provider", { enum: ["meeting_notes", "calling"] }).notNull(),
    name: text("name").notNull(),
    secret: text("secret").notNull(),
    previousSecret: text("previous_secret"),
    previousSecretExpiresAt: integer("previous_secret_expires_at"),
    secretRotatedAt: integer("secret_rotated_at"),
    createdBy: text("created_by").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [index("integration_connections_workspace").on(table.workspaceId, table.createdAt, table.id)],
);

/**
 * Every accepted inbound delivery, by the provider's `webhook-id`: the row is written in the same D1
 * batch as the delivery's effects, so its primary key makes a repeat (even a concurrent one) change
 * nothing. `outcome` records what was done, `ignored` for event types this version does not know.
 */
export const inboundDeliveries = sqliteTable(
  "inbound_deliveries",
  {
    connectionId: text("connection_id").notNull(),
    webhookId: text("webhook_id").notNull(),
    eventType: text("event_type").notNull(),
    occurredAt: integer("occurred_at").notNull(),
    outcome: text("outcome", { enum: ["applied", "ignored"] }).notNull(),
    receivedAt: integer("received_at").notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.connectionId, table.webhookId] }),
    index("inbound_deliveries_received").on(table.receivedAt),
  ],
);

/**
 * Meetings and calls, one per provider id in a workspace (`source` = `meeting_notes` or `calling`).
 * Each group of fields remembers the `occurredAt` of the event that last set it, so an older event
 * arriving late never moves it back.
 */
export const meetings = sqliteTable(
  "meetings",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    source: text("source", { enum: ["meeting_notes", "calling"] }).notNull(),
    externalId: text("external_id").notNull(),
    title: text("title").notNull(),
    description: text("description").notNull(),
    startTimeMs: integer("start_time_ms").notNull(),
    endTimeMs: integer("end_time_ms"),
    timezone: text("timezone"),
    isAllDay: integer("is_all_day", { mode: "boolean" }).notNull(),
    meetingUrl: text("meeting_url"),
    organizerEmail: text("organizer_email"),
    attendeeEmails: text("attendee_emails", { mode: "json" }).$type<string[]>().notNull(),
    eventState: text("event_state", { enum: ["active", "cancelled", "deleted"] }).notNull(),
    hasTranscript: integer("has_transcript", { mode: "boolean" }).notNull(),
    recordingStatus: text("recording_status"),
    callRecordingId: text("call_recording_id"),
    callStatus: text("call_status", { enum: ["in_progress", "ended"] }),
    durationSec: integer("duration_sec"),
    startedAtMs: integer("started_at_ms"),
    endedAtMs: integer("ended_at_ms"),
    /** `occurredAt` of the newest schedule event applied (title, times, state…); null until one came. */
    detailsAt: integer("details_at"),
    recordingAt: integer("recording_at"),
    callAt: integer("call_at"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (table) => [
    uniqueIndex("meetings_external").on(table.workspaceId, table.source, table.externalId),
    index("meetings_workspace_start").on(table.workspaceId, table.startTimeMs, table.id),
    index("meetings_workspace_state_start").on(table.workspaceId, table.eventState, table.startTimeMs, table.id),
  ],
);

/**
 * People in a meeting, one per address (or per provider participant id when there is no address):
 * invitees of the schedule and participants the provider saw join merge into one row.
 */
export const meetingParticipants = sqliteTable(
  "meeting_participants",
  {
    id: text("id").primaryKey(),
    meetingId: text("meeting_id").notNull(),
    workspaceId: text("workspace_id").notNull(),
    /** `email:<address>` or `id:<provider participant id>`. */
    participantKey: text("participant_key").notNull(),
    name: text("name"),
    email: text("email"),
    isHost: integer("is_host", { mode: "boolean" }).notNull(),
    invitationStatus: text("invitation_status"),
    fromCalendarInvitee: integer("from_calendar_invitee", { mode: "boolean" }).notNull(),
    fromRealtimeParticipant: integer("from_realtime_participant", { mode: "boolean" }).notNull(),
    resolvedRecordId: text("resolved_record_id"),
    callRecordingId: text("call_recording_id"),
    /** `occurredAt` of the newest participants event applied to this row. */
    changedAt: integer("changed_at").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [
    uniqueIndex("meeting_participants_key").on(table.meetingId, table.participantKey),
    index("meeting_participants_record").on(table.resolvedRecordId, table.meetingId),
  ],
);

/** The task each provider action item became: the primary key keeps it one task however often it is delivered. */
export const meetingActionItems = sqliteTable(
  "meeting_action_items",
  {
    meetingId: text("meeting_id").notNull(),
    externalId: text("external_id").notNull(),
    taskId: text("task_id").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.meetingId, table.externalId] })],
);
