import { ApiError, type operations } from "@crm/contracts";
import { newId, regional } from "@crm/db";
import { and, eq, max, sql } from "drizzle-orm";
import type { ServiceContext } from "../../env";
import type { BodyOf } from "../../inputs";
import { checkDefaultValue, isChoiceType, uniqueCapableTypes } from "./field-types";
import { loadObjectType, slugFrom } from "./object-types";
import { fieldResponse } from "./resources";

const { objectTypes, fieldDefinitions, fieldOptions, records, recordValues } = regional;

export const defaultOptionColor = "#94a3b8";

/**
 * A new field of an object type, with its options, and an unset value row on every record of the
 * type (so that sorting by the new field keeps them all); 400 with every problem of the input.
 */
export async function createFieldOn(context: ServiceContext, objectTypeId: string, input: BodyOf<typeof operations.createField>) {
  const { db } = context;
  const objectType = await loadObjectType(context, objectTypeId, "admin");
  const problems: { path: string; message: string }[] = [];
  const problem = (path: string, message: string) => problems.push({ path, message });

  const options = input.options ?? [];
  if (isChoiceType(input.type)) {
    const values = options.map((option) => option.value);
    if (new Set(values).size !== values.length) problem("options", "Option values must be unique");
    if (input.type === "select" && options.filter((option) => option.isDefault).length > 1)
      problem("options", "A select field has one default at most");
    if (input.defaultValue !== undefined) problem("defaultValue", "Select fields take their default from the options' isDefault");
  } else if (input.options !== undefined) {
    problem("options", "Only select and multiselect fields have options");
  }
  if (input.type === "relation") {
    if (!input.relationObjectTypeId) problem("relationObjectTypeId", "A relation needs the object type it points at");
  } else {
    if (input.relationObjectTypeId !== undefined) problem("relationObjectTypeId", "Only relation fields point at an object type");
    if (input.isMultiple !== undefined && input.type !== "multiselect")
      problem("isMultiple", "Only relation fields choose between one and many");
  }
  if (input.isUnique && !uniqueCapableTypes.has(input.type)) problem("isUnique", `${input.type} fields cannot be unique`);
  if (input.defaultValue !== undefined && !isChoiceType(input.type) && input.defaultValue !== null) {
    const check = checkDefaultValue({ type: input.type }, input.defaultValue);
    if (!check.ok) problem("defaultValue", check.message);
  }
  if (input.relationObjectTypeId) {
    const [target] = await db
      .select({ workspaceId: objectTypes.workspaceId })
      .from(objectTypes)
      .where(eq(objectTypes.id, input.relationObjectTypeId));
    if (target?.workspaceId !== objectType.workspaceId) problem("relationObjectTypeId", "Not an object type of this workspace");
  }
  if (problems.length > 0) throw new ApiError("invalid_request", "The field is not valid; see details.", problems);

  const slug = input.slug ?? slugFrom(input.name);
  const [[taken], [last]] = await Promise.all([
    db
      .select({ id: fieldDefinitions.id })
      .from(fieldDefinitions)
      .where(and(eq(fieldDefinitions.objectTypeId, objectTypeId), eq(fieldDefinitions.slug, slug))),
    db
      .select({ position: max(fieldDefinitions.position) })
      .from(fieldDefinitions)
      .where(eq(fieldDefinitions.objectTypeId, objectTypeId)),
  ]);
  if (taken) throw new ApiError("conflict", `A field with the slug "${slug}" exists in this object type`, { slug });

  const now = Date.now();
  const fieldId = newId("fld", now);
  const field = {
    id: fieldId,
    objectTypeId,
    workspaceId: objectType.workspaceId,
    slug,
    name: input.name,
    type: input.type,
    isRequired: input.isRequired ?? false,
    isUnique: input.isUnique ?? false,
    defaultValue: isChoiceType(input.type) ? null : (input.defaultValue ?? null),
    isSystem: false,
    isMultiple: input.type === "multiselect" || (input.type === "relation" && (input.isMultiple ?? false)),
    relationObjectTypeId: input.relationObjectTypeId ?? null,
    position: (last?.position ?? -1) + 1,
    createdAt: now,
    updatedAt: now,
  };
  const optionRows = options.map((option, position) => ({
    id: newId("opt", now),
    fieldDefinitionId: fieldId,
    value: option.value,
    label: option.label ?? option.value,
    color: option.color ?? defaultOptionColor,
    position,
    isDefault: option.isDefault ?? false,
    isActive: true,
    createdAt: now,
    updatedAt: now,
  }));
  await db.batch([
    db.insert(fieldDefinitions).values(field),
    ...optionRows.map((option) => db.insert(fieldOptions).values(option)),
    // Every record has a row for every field, unset here, so that sorting by the new field keeps them all.
    db.insert(recordValues).select(
      db
        .select({
          recordId: records.id,
          fieldDefinitionId: sql<string>`${fieldId}`.as("field_definition_id"),
          position: sql<number>`0`.as("position"),
          valueText: sql<null>`null`.as("value_text"),
          valueNumber: sql<null>`null`.as("value_number"),
          targetRecordId: sql<null>`null`.as("target_record_id"),
          identityKey: sql<null>`null`.as("identity_key"),
        })
        .from(records)
        .where(eq(records.objectTypeId, objectTypeId)),
    ),
  ]);
  return fieldResponse(field, optionRows);
}
