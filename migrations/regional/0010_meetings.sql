-- Provider connections, inbound deliveries (dedupe by webhook-id), meetings, participants and
-- the tasks action items became (DESIGN.md section 9).
CREATE TABLE integration_connections (
  id TEXT PRIMARY KEY NOT NULL,
  workspace_id TEXT NOT NULL,
  provider TEXT NOT NULL CHECK (provider IN ('meeting_notes', 'calling')),
  name TEXT NOT NULL,
  secret TEXT NOT NULL,
  previous_secret TEXT,
  previous_secret_expires_at INTEGER,
  secret_rotated_at INTEGER,
  created_by TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX integration_connections_workspace ON integration_connections (workspace_id, created_at, id);

CREATE TABLE inbound_deliveries (
  connection_id TEXT NOT NULL,
  webhook_id TEXT NOT NULL,
  event_type TEXT NOT NULL,
  occurred_at INTEGER NOT NULL,
  outcome TEXT NOT NULL CHECK (outcome IN ('applied', 'ignored')),
  received_at INTEGER NOT NULL,
  PRIMARY KEY (connection_id, webhook_id)
);
CREATE INDEX inbound_deliveries_received ON inbound_deliveries (received_at);

CREATE TABLE meetings (
  id TEXT PRIMARY KEY NOT NULL,
  workspace_id TEXT NOT NULL,
  source TEXT NOT NULL CHECK (source IN ('meeting_notes', 'calling')),
  external_id TEXT NOT NULL,
  title TEXT NOT NULL,
  description TEXT NOT NULL,
  start_time_ms INTEGER NOT NULL,
  end_time_ms INTEGER,
  timezone TEXT,
  is_all_day INTEGER NOT NULL,
  meeting_url TEXT,
  organizer_email TEXT,
  attendee_emails TEXT NOT NULL,
  event_state TEXT NOT NULL CHECK (event_state IN ('active', 'cancelled', 'deleted')),
  has_transcript INTEGER NOT NULL,
  recording_status TEXT,
  call_recording_id TEXT,
  call_status TEXT CHECK (call_status IN ('in_progress', 'ended')),
  duration_sec INTEGER,
  started_at_ms INTEGER,
  ended_at_ms INTEGER,
  details_at INTEGER,
  recording_at INTEGER,
  call_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX meetings_external ON meetings (workspace_id, source, external_id);
CREATE INDEX meetings_workspace_start ON meetings (workspace_id, start_time_ms, id);
CREATE INDEX meetings_workspace_state_start ON meetings (workspace_id, event_state, start_time_ms, id);

CREATE TABLE meeting_participants (
  id TEXT PRIMARY KEY NOT NULL,
  meeting_id TEXT NOT NULL,
  workspace_id TEXT NOT NULL,
  participant_key TEXT NOT NULL,
  name TEXT,
  email TEXT,
  is_host INTEGER NOT NULL,
  invitation_status TEXT,
  from_calendar_invitee INTEGER NOT NULL,
  from_realtime_participant INTEGER NOT NULL,
  resolved_record_id TEXT,
  call_recording_id TEXT,
  changed_at INTEGER NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX meeting_participants_key ON meeting_participants (meeting_id, participant_key);
CREATE INDEX meeting_participants_record ON meeting_participants (resolved_record_id, meeting_id);

CREATE TABLE meeting_action_items (
  meeting_id TEXT NOT NULL,
  external_id TEXT NOT NULL,
  task_id TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (meeting_id, external_id)
);
