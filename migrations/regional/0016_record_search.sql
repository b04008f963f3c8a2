-- Record search (DESIGN.md section 14): one row per live record with the text it is found by (text,
-- email, phone, url and domain values, the labels of its select and multiselect options), rebuilt in
-- the same D1 batch as every write of the record. `name` holds the type's `name` field, `body` the
-- other values, so that bm25 ranks a name match above a match in a long text, and a query's words
-- may match different fields of one record ("anna acme"). The FTS5 table reads its text from this
-- one (external content) and the triggers keep it in step; writers only touch this table. The
-- workspace is checked on this table's row of each match, not in the FTS5 query: a term every row
-- of a workspace holds would make each search read the whole workspace's doclist (measured: 57 ms
-- against 0.5 ms for 20 matches among 400 000 rows).
CREATE TABLE record_search_terms (
  id INTEGER PRIMARY KEY,
  record_id TEXT NOT NULL,
  object_type_id TEXT NOT NULL,
  workspace_id TEXT NOT NULL,
  name TEXT NOT NULL,
  body TEXT NOT NULL
);
CREATE UNIQUE INDEX record_search_terms_record ON record_search_terms (record_id);
CREATE INDEX record_search_terms_object_type ON record_search_terms (object_type_id);

CREATE VIRTUAL TABLE record_search USING fts5(
  name,
  body,
  content = 'record_search_terms',
  content_rowid = 'id',
  tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TRIGGER record_search_terms_inserted AFTER INSERT ON record_search_terms BEGIN
  INSERT INTO record_search (rowid, name, body) VALUES (new.id, new.name, new.body);
END;
CREATE TRIGGER record_search_terms_deleted AFTER DELETE ON record_search_terms BEGIN
  INSERT INTO record_search (record_search, rowid, name, body) VALUES ('delete', old.id, old.name, old.body);
END;
CREATE TRIGGER record_search_terms_updated AFTER UPDATE ON record_search_terms BEGIN
  INSERT INTO record_search (record_search, rowid, name, body) VALUES ('delete', old.id, old.name, old.body);
  INSERT INTO record_search (rowid, name, body) VALUES (new.id, new.name, new.body);
END;

-- Records written before this migration become findable at once: the statement of
-- workers/api/src/domain/records/search-index.ts (`reindexStatements`) over every live record.
INSERT INTO record_search_terms (record_id, object_type_id, workspace_id, name, body)
SELECT r.id, r.object_type_id, r.workspace_id,
  coalesce(group_concat(CASE WHEN f.slug = 'name' THEN coalesce(o.label, v.value_text) END, ' '), ''),
  coalesce(group_concat(CASE WHEN f.slug <> 'name' THEN coalesce(o.label, v.value_text) END, ' '), '')
FROM records r
JOIN record_values v ON v.record_id = r.id AND v.value_text IS NOT NULL
JOIN field_definitions f ON f.id = v.field_definition_id
  AND f.type IN ('text', 'email', 'phone', 'url', 'domain', 'select', 'multiselect')
LEFT JOIN field_options o ON o.field_definition_id = f.id AND o.value = v.value_text
WHERE r.deleted_at IS NULL
GROUP BY r.id;

-- A batch's response may cost more than one item: the units the region reported are kept with the
-- response, so that a replay is charged what the first answer was (DESIGN.md section 4).
ALTER TABLE idempotency_keys ADD COLUMN response_cost_units INTEGER;
