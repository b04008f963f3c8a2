import type { RecordViewConfig } from "@crm/contracts";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { workspaces } from "./workspaces";

/** CRM object types of a workspace: the system ones (people, companies, deals) and custom ones. */
export const objectTypes = sqliteTable(
  "object_types",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    slug: text("slug").notNull(),
    nameSingular: text("name_singular").notNull(),
    namePlural: text("name_plural").notNull(),
    icon: text("icon"),
    color: text("color"),
    isSystem: integer("is_system", { mode: "boolean" }).notNull(),
    isActive: integer("is_active", { mode: "boolean" }).notNull(),
    position: integer("position").notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (table) => [uniqueIndex("object_types_workspace_slug").on(table.workspaceId, table.slug)],
);

export const fieldDefinitions = sqliteTable(
  "field_definitions",
  {
    id: text("id").primaryKey(),
    objectTypeId: text("object_type_id")
      .notNull()
      .references(() => objectTypes.id, { onDelete: "cascade" }),
    workspaceId: text("workspace_id").notNull(),
    slug: text("slug").notNull(),
    name: text("name").notNull(),
    type: text("type").notNull(),
    isRequired: integer("is_required", { mode: "boolean" }).notNull(),
    isUnique: integer("is_unique", { mode: "boolean" }).notNull(),
    /** JSON of the default value, validated against the type; null when none. */
    defaultValue: text("default_value", { mode: "json" }).$type<unknown>(),
    isSystem: integer("is_system", { mode: "boolean" }).notNull(),
    /** Relation fields: one record or many. Multiselect is always many. */
    isMultiple: integer("is_multiple", { mode: "boolean" }).notNull(),
    relationObjectTypeId: text("relation_object_type_id"),
    position: integer("position").notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (table) => [
    uniqueIndex("field_definitions_object_type_slug").on(table.objectTypeId, table.slug),
    index("field_definitions_relation").on(table.relationObjectTypeId),
  ],
);

export const fieldOptions = sqliteTable(
  "field_options",
  {
    id: text("id").primaryKey(),
    fieldDefinitionId: text("field_definition_id")
      .notNull()
      .references(() => fieldDefinitions.id, { onDelete: "cascade" }),
    value: text("value").notNull(),
    label: text("label").notNull(),
    color: text("color").notNull(),
    position: integer("position").notNull(),
    isDefault: integer("is_default", { mode: "boolean" }).notNull(),
    isActive: integer("is_active", { mode: "boolean" }).notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (table) => [uniqueIndex("field_options_field_value").on(table.fieldDefinitionId, table.value)],
);

export const recordViews = sqliteTable(
  "record_views",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    objectTypeId: text("object_type_id")
      .notNull()
      .references(() => objectTypes.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    type: text("type", { enum: ["table", "kanban"] }).notNull(),
    emoji: text("emoji"),
    isDefault: integer("is_default", { mode: "boolean" }).notNull(),
    position: integer("position").notNull(),
    config: text("config", { mode: "json" }).$type<RecordViewConfig>().notNull(),
    kanbanFieldDefinitionId: text("kanban_field_definition_id"),
    kanbanWinOptionIds: text("kanban_win_option_ids", { mode: "json" }).$type<string[]>().notNull(),
    kanbanLossOptionIds: text("kanban_loss_option_ids", { mode: "json" }).$type<string[]>().notNull(),
    createdBy: text("created_by").notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (table) => [index("record_views_object_type").on(table.objectTypeId, table.position)],
);
