import { z } from "@hono/zod-openapi";
import { idSchema, integer, timestampMs } from "../ids";
import { nullableRef } from "../nullable-ref";
import { personSchema } from "../people";
import { defaulted } from "../request-defaults";
import { label, outputText, shortLabel } from "../strings";

/** Shapes of the CRM metadata resources (reference tables; DESIGN.md section 6). */

export const fieldTypes = [
  "text",
  "number",
  "checkbox",
  "date",
  "timestamp",
  "email",
  "phone",
  "url",
  "domain",
  "select",
  "multiselect",
  "relation",
  "user",
] as const;
export type FieldType = (typeof fieldTypes)[number];

export const filterOperators = [
  "eq",
  "neq",
  "contains",
  "not_contains",
  "starts_with",
  "gt",
  "gte",
  "lt",
  "lte",
  "in",
  "not_in",
  "is_empty",
  "is_not_empty",
] as const;
export type FilterOperator = (typeof filterOperators)[number];

const name = label();
const slug = z
  .string()
  .max(63)
  .regex(/^[a-z][a-z0-9_]{0,62}$/, "Lowercase letters, digits and underscores, starting with a letter (at most 63)");
const color = z
  .string()
  .max(7)
  .regex(/^#[0-9a-fA-F]{6}$/, "A hex color such as #3b82f6");
const shortText = shortLabel();
const slugText = outputText(63);

export const objectTypeSchema = z
  .object({
    id: idSchema("obj"),
    workspaceId: idSchema("ws"),
    slug: slugText,
    name: outputText().openapi({ description: "Display name (the plural name)" }),
    nameSingular: outputText(),
    namePlural: outputText(),
    icon: outputText(64).optional(),
    color: outputText(7).optional(),
    isSystem: z.boolean(),
    isActive: z.boolean(),
    order: integer(0, 1_000_000),
    createdAt: timestampMs,
    updatedAt: timestampMs,
  })
  .openapi("CrmObjectType");

export const fieldOptionSchema = z
  .object({
    id: idSchema("opt"),
    fieldDefinitionId: idSchema("fld"),
    value: outputText(),
    label: outputText(),
    order: integer(0, 1_000_000),
    isDefault: z.boolean(),
    isActive: z.boolean(),
    color: outputText(7),
  })
  .openapi("CrmFieldOption");

export const fieldSchema = z
  .object({
    id: idSchema("fld"),
    objectTypeId: idSchema("obj"),
    workspaceId: idSchema("ws"),
    slug: slugText.openapi({ description: "Key of the field in a record's `fields`" }),
    name: outputText(),
    type: z.enum(fieldTypes),
    isRequired: z.boolean(),
    isUnique: z.boolean().openapi({ description: "Values identify a record: equal values (trimmed, case-folded) conflict" }),
    defaultValue: z.unknown().nullable(),
    isSystem: z.boolean(),
    isMultiple: z.boolean().openapi({ description: "Relation to many records (multiselect is always multiple)" }),
    relationObjectTypeId: idSchema("obj").nullable(),
    order: integer(0, 1_000_000),
    options: z.array(fieldOptionSchema).max(500).optional().openapi({ description: "Select and multiselect fields" }),
    createdAt: timestampMs,
    updatedAt: timestampMs,
  })
  .openapi("CrmFieldDefinition");

export const filterConditionSchema = z
  .object({
    fieldDefinitionId: idSchema("fld"),
    operator: z.enum(filterOperators),
    value: z
      .unknown()
      .optional()
      .openapi({ description: "Compared value; a list for `in` and `not_in`, absent for `is_empty` and `is_not_empty`" }),
  })
  .strict();

export const viewFilterSchema = z
  .object({ op: z.enum(["and", "or"]), conditions: z.array(filterConditionSchema).max(50) })
  .strict()
  .openapi("CrmFilter");

export const viewSortSchema = z.object({ fieldDefinitionId: idSchema("fld"), direction: z.enum(["asc", "desc"]) }).strict();

const viewColumnSchema = z
  .object({
    fieldDefinitionId: idSchema("fld"),
    width: integer(40, 2000).optional(),
    hidden: z.boolean().optional(),
  })
  .strict();

const viewConfigShape = {
  columns: z.array(viewColumnSchema).max(200),
  filter: nullableRef(viewFilterSchema),
  sorts: z.array(viewSortSchema).max(10),
  groupBy: idSchema("fld").nullable(),
};

/** A view's configuration as stored and answered: every part present. */
export const viewConfigSchema = z.object(viewConfigShape).strict().openapi("CrmRecordViewConfig");

/** A view's configuration as a client sends it: parts left out take their defaults. */
export const viewConfigInputSchema = z
  .object({
    columns: defaulted(viewConfigShape.columns, [], "Columns in order."),
    filter: defaulted(viewConfigShape.filter, null, "Records the view shows."),
    sorts: defaulted(viewConfigShape.sorts, [], "Sort order, first key first."),
    groupBy: defaulted(viewConfigShape.groupBy, null, "Field to group rows by."),
  })
  .strict()
  .openapi("CrmRecordViewConfigInput");

export type RecordViewConfig = z.infer<typeof viewConfigSchema>;

export const recordViewSchema = z
  .object({
    id: idSchema("view"),
    workspaceId: idSchema("ws"),
    objectTypeId: idSchema("obj"),
    name: outputText(),
    type: z.enum(["table", "kanban"]),
    isDefault: z.boolean(),
    config: viewConfigSchema,
    createdAt: timestampMs,
    updatedAt: timestampMs,
    emoji: outputText(64).optional(),
    order: integer(0, 1_000_000),
    createdBy: outputText(73).openapi({ description: "Id of the actor that created it, or `system` for the default views" }),
    creator: nullableRef(personSchema).openapi({
      description:
        "The user who created it, as the members directory shows them; null for the default views and views an agent or app created",
    }),
    kanbanFieldDefinitionId: idSchema("fld").optional(),
    kanbanWinOptionIds: z.array(idSchema("opt")).max(100),
    kanbanLossOptionIds: z.array(idSchema("opt")).max(100),
  })
  .openapi("CrmRecordView");

export const inputs = { name, slug, color, shortText };
