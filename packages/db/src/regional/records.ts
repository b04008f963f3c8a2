import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { fieldDefinitions, objectTypes } from "./crm";

/** CRM records; `deletedAt` marks a soft delete (gone from reads and lists). */
export const records = sqliteTable(
  "records",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    objectTypeId: text("object_type_id")
      .notNull()
      .references(() => objectTypes.id, { onDelete: "cascade" }),
    createdBy: text("created_by").notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    deletedAt: integer("deleted_at"),
  },
  (table) => [index("records_object_type_created").on(table.objectTypeId, table.createdAt, table.id)],
);

/**
 * One row per stored value (several for multiselect and to-many relations, by `position`), typed
 * columns so that every field can be filtered and sorted through an index.
 */
export const recordValues = sqliteTable(
  "record_values",
  {
    recordId: text("record_id")
      .notNull()
      .references(() => records.id, { onDelete: "cascade" }),
    fieldDefinitionId: text("field_definition_id")
      .notNull()
      .references(() => fieldDefinitions.id, { onDelete: "cascade" }),
    position: integer("position").notNull(),
    valueText: text("value_text"),
    valueNumber: real("value_number"),
    targetRecordId: text("target_record_id"),
    /** Unique fields only: the value trimmed and case-folded; null once the record is deleted. */
    identityKey: text("identity_key"),
  },
  (table) => [
    primaryKey({ columns: [table.recordId, table.fieldDefinitionId, table.position] }),
    uniqueIndex("record_values_identity").on(table.fieldDefinitionId, table.identityKey),
    index("record_values_field_text").on(table.fieldDefinitionId, table.valueText, table.recordId),
    index("record_values_field_number").on(table.fieldDefinitionId, table.valueNumber, table.recordId),
    index("record_values_target").on(table.targetRecordId),
    // A record's values in one place, covering the reads of them (migration 0018).
    index("record_values_record").on(table.recordId, table.fieldDefinitionId, table.position, table.valueText, table.valueNumber),
  ],
);

/**
 * What record search reads (migration 0016): one row per live record, its `name` field's value in
 * `name` and its other searchable values in `body`. Triggers keep the FTS5 table `record_search` in
 * step with it; writers only ever touch this table.
 */
export const recordSearchTerms = sqliteTable(
  "record_search_terms",
  {
    id: integer("id").primaryKey(),
    recordId: text("record_id").notNull(),
    objectTypeId: text("object_type_id").notNull(),
    workspaceId: text("workspace_id").notNull(),
    name: text("name").notNull(),
    body: text("body").notNull(),
  },
  (table) => [
    uniqueIndex("record_search_terms_record").on(table.recordId),
    index("record_search_terms_object_type").on(table.objectTypeId),
  ],
);

/** The FTS5 index over `record_search_terms` (external content); drizzle cannot declare virtual tables, so only its columns are named here. */
export const recordSearch = sqliteTable("record_search", {
  name: text("name"),
  body: text("body"),
});
