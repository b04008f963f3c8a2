-- Inbox views may sort by creation time: that order is served by an index too, never a sort of the workspace.
CREATE INDEX conversations_workspace_created ON conversations (workspace_id, created_at, id);
