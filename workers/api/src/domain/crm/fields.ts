import { ApiError, type FieldType, type operations, type WorkspaceRole } from "@crm/contracts";
import { regional, runBatch } from "@crm/db";
import { and, asc, eq, inArray, isNotNull, isNull, or, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { loadInWorkspace } from "../../access";
import { changeWithoutLoss, nextUpdatedAt, runBatchAtVersion, runConditionalBatch } from "../../conditional-write";
import type { ServiceContext } from "../../env";
import type { BodyOf, QueryOf } from "../../inputs";
import { paginate } from "../../pagination";
import { isIdentityViolation } from "../records/store";
import { fieldRemovalStatements } from "./field-removal";
import { checkDefaultValue, isChoiceType, uniqueCapableTypes } from "./field-types";
import { loadObjectType } from "./object-types";
import { checkPermutation, fieldResponse, optionsOf } from "./resources";

const { fieldDefinitions, fieldOptions, records, recordValues } = regional;

export const loadField = ({ db, actor }: ServiceContext, id: string, role?: WorkspaceRole) =>
  loadInWorkspace(db, actor, fieldDefinitions, id, { what: "Field", role });

/** A field with its options in their order. */
async function loadFieldWithOptions(context: ServiceContext, fieldDefinitionId: string, role?: WorkspaceRole) {
  const field = await loadField(context, fieldDefinitionId, role);
  const options = await context.db
    .select()
    .from(fieldOptions)
    .where(eq(fieldOptions.fieldDefinitionId, fieldDefinitionId))
    .orderBy(asc(fieldOptions.position));
  return { field, options };
}

/** A field as its writes answer it, options included. */
export async function readField(context: ServiceContext, fieldDefinitionId: string) {
  const { field, options } = await loadFieldWithOptions(context, fieldDefinitionId);
  return fieldResponse(field, options);
}

/** The fields of an object type in their order, each with its options. */
export async function listFieldsOf(
  context: ServiceContext,
  objectTypeId: string,
  { limit, cursor }: QueryOf<typeof operations.listFields>,
) {
  const { db, cursorSecret } = context;
  await loadObjectType(context, objectTypeId);
  type Field = typeof fieldDefinitions.$inferSelect;
  const page = await paginate<Field>(
    {
      scope: `fields:${objectTypeId}`,
      limit,
      cursor,
      order: [
        { column: fieldDefinitions.position, direction: "asc", valueIn: (field) => field.position },
        { column: fieldDefinitions.id, direction: "asc", valueIn: (field) => field.id },
      ],
      fetch: ({ after, orderBy, limit }) =>
        db
          .select()
          .from(fieldDefinitions)
          .where(and(eq(fieldDefinitions.objectTypeId, objectTypeId), after))
          .orderBy(...orderBy)
          .limit(limit),
    },
    cursorSecret,
  );
  const options = await optionsOf(
    db,
    page.data.map((field) => field.id),
  );
  const data = page.data.map((field) =>
    fieldResponse(
      field,
      options.filter((option) => option.fieldDefinitionId === field.id),
    ),
  );
  return { data, pagination: page.pagination };
}

/**
 * Changes a field's named properties, conditionally (`changeWithoutLoss`); making it unique fills
 * identity keys, and live records that share a value make it 409.
 */
export async function updateFieldOf(
  context: ServiceContext,
  fieldDefinitionId: string,
  changes: BodyOf<typeof operations.updateField>,
) {
  const { db } = context;
  return changeWithoutLoss(context, {
    what: "Field",
    named: Object.keys(changes),
    read: () => loadFieldWithOptions(context, fieldDefinitionId, "admin"),
    shown: ({ field, options }) => fieldResponse(field, options),
    write: async ({ field, options }) => {
      const type = field.type as FieldType;
      if (field.isSystem && Object.keys(changes).some((key) => key !== "name")) {
        throw new ApiError("system_resource", "Only the name of a system field can change");
      }
      if (changes.isUnique && !uniqueCapableTypes.has(type)) {
        throw new ApiError("invalid_request", "The field is not valid; see details.", [
          { path: "isUnique", message: `${type} fields cannot be unique` },
        ]);
      }
      if (changes.defaultValue !== undefined && changes.defaultValue !== null) {
        const check = isChoiceType(type)
          ? { ok: false as const, message: "Select fields take their default from the options' isDefault" }
          : checkDefaultValue({ type }, changes.defaultValue);
        if (!check.ok)
          throw new ApiError("invalid_request", "The field is not valid; see details.", [
            { path: "defaultValue", message: check.message },
          ]);
      }
      const updatedAt = nextUpdatedAt(field);
      const statements: BatchItem<"sqlite">[] = [];
      // Identity keys exist only while a field is unique; live records that share a value make it 409.
      if (changes.isUnique !== undefined && changes.isUnique !== field.isUnique) {
        statements.push(
          changes.isUnique
            ? db
                .update(recordValues)
                .set({ identityKey: sql`lower(trim(coalesce(${recordValues.valueText}, ${recordValues.valueNumber})))` })
                .where(
                  and(
                    eq(recordValues.fieldDefinitionId, fieldDefinitionId),
                    or(isNotNull(recordValues.valueText), isNotNull(recordValues.valueNumber)),
                    inArray(recordValues.recordId, db.select({ id: records.id }).from(records).where(isNull(records.deletedAt))),
                  ),
                )
            : db.update(recordValues).set({ identityKey: null }).where(eq(recordValues.fieldDefinitionId, fieldDefinitionId)),
        );
      }
      try {
        await runConditionalBatch(db, fieldDefinitions, field, changes, updatedAt, statements);
      } catch (error) {
        if (isIdentityViolation(error))
          throw new ApiError("conflict", "Live records share values of this field, so it cannot be unique");
        throw error;
      }
      return fieldResponse({ ...field, ...changes, updatedAt }, options);
    },
  });
}

/** Removes a custom field for good: its values, options and every mention in saved views. */
export async function deleteFieldOf(context: ServiceContext, fieldDefinitionId: string): Promise<void> {
  const field = await loadField(context, fieldDefinitionId, "admin");
  if (field.isSystem) throw new ApiError("system_resource", "System fields cannot be deleted");
  await runBatchAtVersion(context, fieldDefinitions, field.id, await fieldRemovalStatements(context.db, [field]));
}

/** The fields' new order: exactly the current set, each once. */
export async function reorderFieldsOf(context: ServiceContext, objectTypeId: string, fieldDefinitionIds: string[]) {
  const { db } = context;
  await loadObjectType(context, objectTypeId, "admin");
  const current = await db
    .select({ id: fieldDefinitions.id })
    .from(fieldDefinitions)
    .where(eq(fieldDefinitions.objectTypeId, objectTypeId));
  checkPermutation(
    fieldDefinitionIds,
    current.map((field) => field.id),
    "fieldDefinitionIds",
  );
  const now = Date.now();
  await runBatch(
    db,
    fieldDefinitionIds.map((id, position) =>
      db.update(fieldDefinitions).set({ position, updatedAt: now }).where(eq(fieldDefinitions.id, id)),
    ),
  );
}
