-- CRM metadata (object types, fields, options, record views) and record storage.
CREATE TABLE object_types (
  id TEXT PRIMARY KEY NOT NULL,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  slug TEXT NOT NULL,
  name_singular TEXT NOT NULL,
  name_plural TEXT NOT NULL,
  icon TEXT,
  color TEXT,
  is_system INTEGER NOT NULL,
  is_active INTEGER NOT NULL,
  position INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX object_types_workspace_slug ON object_types (workspace_id, slug);

CREATE TABLE field_definitions (
  id TEXT PRIMARY KEY NOT NULL,
  object_type_id TEXT NOT NULL REFERENCES object_types(id) ON DELETE CASCADE,
  workspace_id TEXT NOT NULL,
  slug TEXT NOT NULL,
  name TEXT NOT NULL,
  type TEXT NOT NULL,
  is_required INTEGER NOT NULL,
  is_unique INTEGER NOT NULL,
  default_value TEXT,
  is_system INTEGER NOT NULL,
  is_multiple INTEGER NOT NULL,
  relation_object_type_id TEXT,
  position INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX field_definitions_object_type_slug ON field_definitions (object_type_id, slug);
CREATE INDEX field_definitions_relation ON field_definitions (relation_object_type_id);

CREATE TABLE field_options (
  id TEXT PRIMARY KEY NOT NULL,
  field_definition_id TEXT NOT NULL REFERENCES field_definitions(id) ON DELETE CASCADE,
  value TEXT NOT NULL,
  label TEXT NOT NULL,
  color TEXT NOT NULL,
  position INTEGER NOT NULL,
  is_default INTEGER NOT NULL,
  is_active INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX field_options_field_value ON field_options (field_definition_id, value);

CREATE TABLE record_views (
  id TEXT PRIMARY KEY NOT NULL,
  workspace_id TEXT NOT NULL,
  object_type_id TEXT NOT NULL REFERENCES object_types(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  type TEXT NOT NULL CHECK (type IN ('table', 'kanban')),
  emoji TEXT,
  is_default INTEGER NOT NULL,
  position INTEGER NOT NULL,
  config TEXT NOT NULL,
  kanban_field_definition_id TEXT,
  kanban_win_option_ids TEXT NOT NULL,
  kanban_loss_option_ids TEXT NOT NULL,
  created_by TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX record_views_object_type ON record_views (object_type_id, position);

CREATE TABLE records (
  id TEXT PRIMARY KEY NOT NULL,
  workspace_id TEXT NOT NULL,
  object_type_id TEXT NOT NULL REFERENCES object_types(id) ON DELETE CASCADE,
  created_by TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  deleted_at INTEGER
);
CREATE INDEX records_object_type_created ON records (object_type_id, created_at, id);

CREATE TABLE record_values (
  record_id TEXT NOT NULL REFERENCES records(id) ON DELETE CASCADE,
  field_definition_id TEXT NOT NULL REFERENCES field_definitions(id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  value_text TEXT,
  value_number REAL,
  target_record_id TEXT,
  PRIMARY KEY (record_id, field_definition_id, position)
);
CREATE INDEX record_values_field_text ON record_values (field_definition_id, value_text, record_id);
CREATE INDEX record_values_field_number ON record_values (field_definition_id, value_number, record_id);
CREATE INDEX record_values_target ON record_values (target_record_id);
