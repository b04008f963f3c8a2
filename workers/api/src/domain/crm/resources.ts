import { ApiError, type FieldType } from "@crm/contracts";
import { regional, rowsFromJson } from "@crm/db";
import { asc, eq, inArray, type SQL } from "drizzle-orm";
import type { Database } from "../../database";

const { objectTypes, fieldDefinitions, fieldOptions, recordViews } = regional;

type ObjectTypeRow = typeof objectTypes.$inferSelect;
type FieldRow = typeof fieldDefinitions.$inferSelect;
type OptionRow = typeof fieldOptions.$inferSelect;
type ViewRow = typeof recordViews.$inferSelect;

/** The options of some fields, in their order. */
export async function optionsOf(db: Database, fieldIds: string[]) {
  if (fieldIds.length === 0) return [];
  return db
    .select()
    .from(fieldOptions)
    .where(inArray(fieldOptions.fieldDefinitionId, fieldIds))
    .orderBy(asc(fieldOptions.position), asc(fieldOptions.id));
}

/** The fields of an object type in their order, each with its options in theirs (two queries, run together). */
export async function fieldsWithOptions(db: Database, objectTypeId: string) {
  const [fields, options] = await Promise.all(fieldAndOptionQueries(db, eq(fieldDefinitions.objectTypeId, objectTypeId)));
  return withOptions(fields, options);
}

/**
 * The two queries of `fieldsWithOptions` for the fields `ofType` selects (a condition on
 * `field_definitions`, which may name the type through a subquery), unawaited: a caller can send
 * them in one D1 batch with other reads.
 */
export function fieldAndOptionQueries(db: Database, ofType: SQL) {
  return [
    db.select().from(fieldDefinitions).where(ofType).orderBy(asc(fieldDefinitions.position), asc(fieldDefinitions.id)),
    db
      .select()
      .from(fieldOptions)
      .where(inArray(fieldOptions.fieldDefinitionId, db.select({ id: fieldDefinitions.id }).from(fieldDefinitions).where(ofType)))
      .orderBy(asc(fieldOptions.position), asc(fieldOptions.id)),
  ] as const;
}

/**
 * `fieldsWithOptions` from JSON columns of a statement that reads more (`json_group_array` of
 * `rowJson` over the type's fields and over their options), in the same order.
 */
export function fieldsWithOptionsFromJson(fieldsJson: string | null, optionsJson: string | null) {
  const byPosition = (a: { position: number; id: string }, b: { position: number; id: string }) =>
    a.position - b.position || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  return withOptions(
    rowsFromJson(fieldDefinitions, fieldsJson).sort(byPosition),
    rowsFromJson(fieldOptions, optionsJson).sort(byPosition),
  );
}

/** Each field with its options, as `fieldsWithOptions` answers. */
export function withOptions(fields: FieldRow[], options: OptionRow[]) {
  return fields.map((field) => ({
    ...field,
    type: field.type as FieldType,
    options: options.filter((option) => option.fieldDefinitionId === field.id),
  }));
}

/** Response shapes: every field of the reference's tables, timestamps in ms, absent optionals left out. */
export const objectTypeResponse = (row: ObjectTypeRow) => ({
  id: row.id,
  workspaceId: row.workspaceId,
  slug: row.slug,
  name: row.namePlural,
  nameSingular: row.nameSingular,
  namePlural: row.namePlural,
  ...(row.icon === null ? {} : { icon: row.icon }),
  ...(row.color === null ? {} : { color: row.color }),
  isSystem: row.isSystem,
  isActive: row.isActive,
  order: row.position,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
});

export const optionResponse = (row: OptionRow) => ({
  id: row.id,
  fieldDefinitionId: row.fieldDefinitionId,
  value: row.value,
  label: row.label,
  order: row.position,
  isDefault: row.isDefault,
  isActive: row.isActive,
  color: row.color,
});

/** Select fields keep their default on the options (`isDefault`); other types in the field. */
function defaultValueOf(row: FieldRow, options: OptionRow[]): unknown {
  const defaults = options.filter((option) => option.isDefault && option.isActive).map((option) => option.value);
  if (row.type === "select") return defaults[0] ?? null;
  if (row.type === "multiselect") return defaults.length > 0 ? defaults : null;
  return row.defaultValue ?? null;
}

export const fieldResponse = (row: FieldRow, options: OptionRow[]) => ({
  id: row.id,
  objectTypeId: row.objectTypeId,
  workspaceId: row.workspaceId,
  slug: row.slug,
  name: row.name,
  type: row.type as FieldType,
  isRequired: row.isRequired,
  isUnique: row.isUnique,
  defaultValue: defaultValueOf(row, options),
  isSystem: row.isSystem,
  isMultiple: row.isMultiple,
  relationObjectTypeId: row.relationObjectTypeId,
  order: row.position,
  ...(row.type === "select" || row.type === "multiselect" ? { options: options.map(optionResponse) } : {}),
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
});

export const viewResponse = (row: ViewRow) => ({
  id: row.id,
  workspaceId: row.workspaceId,
  objectTypeId: row.objectTypeId,
  name: row.name,
  type: row.type,
  isDefault: row.isDefault,
  config: row.config,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
  ...(row.emoji === null ? {} : { emoji: row.emoji }),
  order: row.position,
  createdBy: row.createdBy,
  ...(row.kanbanFieldDefinitionId === null ? {} : { kanbanFieldDefinitionId: row.kanbanFieldDefinitionId }),
  kanbanWinOptionIds: row.kanbanWinOptionIds,
  kanbanLossOptionIds: row.kanbanLossOptionIds,
});

/** Reorder bodies must be exactly the current set, each id once (DESIGN.md section 6). */
export function checkPermutation(given: string[], current: string[], path: string): void {
  const currentSet = new Set(current);
  const givenSet = new Set(given);
  const problems: { path: string; message: string }[] = [];
  given.forEach((id, i) => {
    if (!currentSet.has(id)) problems.push({ path: `${path}.${i}`, message: "Not one of the object type's items" });
  });
  if (givenSet.size !== given.length) problems.push({ path, message: "An id appears more than once" });
  const missing = current.filter((id) => !givenSet.has(id));
  if (missing.length > 0)
    problems.push({ path, message: `Missing ${missing.length} of the object type's items: ${missing.join(", ")}` });
  if (problems.length > 0)
    throw new ApiError("invalid_request", "The new order must list every item exactly once; see details.", problems);
}
