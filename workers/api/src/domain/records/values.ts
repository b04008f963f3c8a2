import type { FieldType, Problem } from "@crm/contracts";
import { checkScalar } from "../crm/field-types";
import { isBlank } from "./blank-text";

/** A field of the object type as record validation needs it. */
export interface RecordField {
  id: string;
  slug: string;
  type: FieldType;
  isRequired: boolean;
  isUnique: boolean;
  isMultiple: boolean;
  defaultValue: unknown;
  relationObjectTypeId: string | null;
  options: { id: string; value: string; label: string; isActive: boolean; isDefault: boolean }[];
}

/** One stored value: every record has a row at position 0 for every field (null when unset), more for lists. */
export interface StoredValue {
  fieldDefinitionId: string;
  position: number;
  valueText: string | null;
  valueNumber: number | null;
  targetRecordId: string | null;
  identityKey: string | null;
}

/** Keys of a record that clients never set. */
const readOnlyKeys = new Set(["id", "workspaceId", "objectTypeId", "createdAt", "updatedAt", "createdBy", "deletedAt"]);
const numericTypes = new Set<FieldType>(["number", "timestamp", "checkbox"]);

/** Trimmed and case-folded: what makes two values of a unique field the same identity. */
export const identityKeyOf = (value: string | number) => String(value).trim().toLowerCase();

export const unsetRow = (fieldDefinitionId: string): StoredValue => ({
  fieldDefinitionId,
  position: 0,
  valueText: null,
  valueNumber: null,
  targetRecordId: null,
  identityKey: null,
});

function storedScalar(field: RecordField, value: string | number | boolean, position: number): StoredValue {
  const row = unsetRow(field.id);
  row.position = position;
  if (typeof value === "boolean") row.valueNumber = value ? 1 : 0;
  else if (numericTypes.has(field.type)) row.valueNumber = value as number;
  else row.valueText = String(value);
  if (field.type === "relation") row.targetRecordId = String(value);
  if (field.isUnique) row.identityKey = identityKeyOf(value as string | number);
  return row;
}

/** The value a field takes when a new record does not set it: its default, or its default options. */
function defaultOf(field: RecordField): unknown {
  const defaults = field.options.filter((option) => option.isDefault && option.isActive).map((option) => option.value);
  if (field.type === "select") return defaults[0] ?? null;
  if (field.type === "multiselect") return defaults.length > 0 ? defaults : null;
  return field.defaultValue ?? null;
}

/** Stored rows of one field's value (null or an empty list: unset), or the problem with it. */
function rowsFor(field: RecordField, value: unknown, path: string, problems: Problem[]): StoredValue[] | null {
  if (value === null || (Array.isArray(value) && value.length === 0)) return [unsetRow(field.id)];
  const shape = {
    type: field.type,
    activeOptionValues: new Set(field.options.filter((option) => option.isActive).map((option) => option.value)),
  };
  const many = field.type === "multiselect" || (field.type === "relation" && field.isMultiple);
  const items = many ? value : [value];
  if (!Array.isArray(items)) {
    problems.push({ path, message: "Expected a list" });
    return null;
  }
  if (items.length > 500) {
    problems.push({ path, message: "At most 500 values" });
    return null;
  }
  const rows: StoredValue[] = [];
  for (const [position, item] of [...new Set(items)].entries()) {
    const check = checkScalar(shape, item);
    if (!check.ok) {
      problems.push({ path: many ? `${path}.${position}` : path, message: check.message });
      return null;
    }
    rows.push(storedScalar(field, check.value, position));
  }
  return rows;
}

/**
 * Validates a record's `fields` against its object type. On creation every field gets rows (given
 * value, else default, else unset) and required fields must end up set; on update only the given
 * fields change and required ones cannot be cleared, nor set to blank text. Problems name `fields.<slug>`.
 */
export function planValues(fields: RecordField[], input: Record<string, unknown>, mode: "create" | "update") {
  const problems: Problem[] = [];
  const bySlug = new Map(fields.map((field) => [field.slug, field]));
  for (const key of Object.keys(input)) {
    if (readOnlyKeys.has(key)) problems.push({ path: `fields.${key}`, message: "Read-only; set by the service" });
    else if (!bySlug.has(key)) problems.push({ path: `fields.${key}`, message: "Not a field of this object type" });
  }
  const planned = new Map<string, StoredValue[]>();
  for (const field of fields) {
    const given = Object.hasOwn(input, field.slug);
    if (!given && mode === "update") continue;
    const value = given ? input[field.slug] : defaultOf(field);
    const path = `fields.${field.slug}`;
    const rows = rowsFor(field, value, path, problems);
    if (!rows) continue;
    const isSet = rows.some((row) => (row.valueText !== null && !isBlank(row.valueText)) || row.valueNumber !== null);
    if (field.isRequired && !isSet)
      problems.push({
        path,
        message: rows.some((row) => row.valueText !== null) ? "Required; blank text is no value" : "Required",
      });
    planned.set(field.id, rows);
  }
  return { planned, problems };
}

/** A record's `fields`: every field by slug, null when unset, lists for multiselects and to-many relations. */
export function fieldsFrom(
  fields: RecordField[],
  rows: { fieldDefinitionId: string; position: number; valueText: string | null; valueNumber: number | null }[],
) {
  const values: Record<string, unknown> = {};
  const byField = Map.groupBy(rows, (row) => row.fieldDefinitionId);
  for (const field of fields) {
    const own = (byField.get(field.id) ?? []).sort((a, b) => a.position - b.position);
    const items = own.flatMap((row): (string | number | boolean)[] => {
      if (field.type === "checkbox") return row.valueNumber === null ? [] : [row.valueNumber === 1];
      if (numericTypes.has(field.type)) return row.valueNumber === null ? [] : [row.valueNumber];
      return row.valueText === null ? [] : [row.valueText];
    });
    const many = field.type === "multiselect" || (field.type === "relation" && field.isMultiple);
    values[field.slug] = many ? (items.length > 0 ? items : null) : (items[0] ?? null);
  }
  return values;
}
