-- Identity of records: the normalized value (trimmed, case-folded) of a unique field, kept only
-- while the record is live, so that two live records can never share it (DESIGN.md section 6).
ALTER TABLE record_values ADD COLUMN identity_key TEXT;
CREATE UNIQUE INDEX record_values_identity ON record_values (field_definition_id, identity_key);
