import { z } from "@hono/zod-openapi";
import { idSchema, timestampMs } from "../ids";

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

export const name = z.string().trim().min(1).max(255);
const slug = z
  .string()
  .regex(/^[a-z][a-z0-9_]{0,62}$/, "Lowercase letters, digits and underscores, starting with a letter (at most 63)");
const color = z.string().regex(/^#[0-9a-fA-F]{6}$/, "A hex color such as #3b82f6");
const shortText = z.string().max(64);

export const objectTypeSchema = z
  .object({
    id: idSchema("obj"),
    workspaceId: idSchema("ws"),
    slug: z.string(),
    name: z.string().optional().openapi({ description: "Display name (the plural name)" }),
    nameSingular: z.string(),
    namePlural: z.string(),
    icon: z.string().optional(),
    color: z.string().optional(),
    isSystem: z.boolean(),
    isActive: z.boolean(),
    order: z.number().int(),
    createdAt: timestampMs,
    updatedAt: timestampMs,
  })
  .openapi("CrmObjectType");

export const fieldOptionSchema = z
  .object({
    id: idSchema("opt"),
    fieldDefinitionId: idSchema("fld"),
    value: z.string(),
    label: z.string(),
    order: z.number().int(),
    isDefault: z.boolean(),
    isActive: z.boolean(),
    color: z.string(),
  })
  .openapi("CrmFieldOption");

export const fieldSchema = z
  .object({
    id: idSchema("fld"),
    objectTypeId: idSchema("obj"),
    workspaceId: idSchema("ws"),
    slug: z.string().openapi({ description: "Key of the field in a record's `fields`" }),
    name: z.string(),
    type: z.enum(fieldTypes),
    isRequired: z.boolean(),
    isUnique: z.boolean().openapi({ description: "Values identify a record: equal values (trimmed, case-folded) conflict" }),
    defaultValue: z.unknown().nullable(),
    isSystem: z.boolean(),
    isMultiple: z.boolean().openapi({ description: "Relation to many records (multiselect is always multiple)" }),
    relationObjectTypeId: z.string().nullable(),
    order: z.number().int(),
    options: z.array(fieldOptionSchema).optional().openapi({ description: "Select and multiselect fields" }),
    createdAt: timestampMs,
    updatedAt: timestampMs,
  })
  .openapi("CrmFieldDefinition");

export const filterConditionSchema = z
  .object({ fieldDefinitionId: idSchema("fld"), operator: z.enum(filterOperators), value: z.unknown().optional() })
  .strict();

export const viewFilterSchema = z
  .object({ op: z.enum(["and", "or"]), conditions: z.array(filterConditionSchema).max(50) })
  .strict()
  .openapi("CrmFilter");

export const viewSortSchema = z.object({ fieldDefinitionId: idSchema("fld"), direction: z.enum(["asc", "desc"]) }).strict();

export const viewConfigSchema = z
  .object({
    columns: z
      .array(
        z
          .object({
            fieldDefinitionId: idSchema("fld"),
            width: z.number().int().min(40).max(2000).optional(),
            hidden: z.boolean().optional(),
          })
          .strict(),
      )
      .max(200)
      .default([]),
    filter: viewFilterSchema.nullable().default(null),
    sorts: z.array(viewSortSchema).max(10).default([]),
    groupBy: idSchema("fld").nullable().default(null),
  })
  .strict()
  .openapi("CrmRecordViewConfig");

export type RecordViewConfig = z.infer<typeof viewConfigSchema>;

export const recordViewSchema = z
  .object({
    id: idSchema("view"),
    workspaceId: idSchema("ws"),
    objectTypeId: idSchema("obj"),
    name: z.string(),
    type: z.enum(["table", "kanban"]),
    isDefault: z.boolean(),
    config: viewConfigSchema,
    createdAt: timestampMs,
    updatedAt: timestampMs,
    emoji: z.string().optional(),
    order: z.number().int(),
    createdBy: z.string(),
    kanbanFieldDefinitionId: z.string().optional(),
    kanbanWinOptionIds: z.array(z.string()),
    kanbanLossOptionIds: z.array(z.string()),
  })
  .openapi("CrmRecordView");

export const inputs = { name, slug, color, shortText };
