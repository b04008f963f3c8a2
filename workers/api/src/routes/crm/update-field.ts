import { ApiError, type FieldType, type operations } from "@crm/contracts";
import { regional } from "@crm/db";
import { and, asc, eq, inArray, isNotNull, isNull, or, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { runBatch } from "../../batch";
import { checkDefaultValue, isChoiceType, uniqueCapableTypes } from "../../domain/crm/field-types";
import { fieldResponse, loadField } from "../../domain/crm/resources";
import { isIdentityViolation } from "../../domain/records/store";
import type { OperationHandler } from "../../handler";

const { fieldDefinitions, fieldOptions, records, recordValues } = regional;

export const updateField: OperationHandler<typeof operations.updateField> = async (c) => {
  const { fieldDefinitionId } = c.req.valid("param");
  const changes = c.req.valid("json");
  const { db, actor } = c.var;
  const field = await loadField(db, actor, fieldDefinitionId, "admin");
  const type = field.type as FieldType;
  if (field.isSystem && Object.keys(changes).some((key) => key !== "name")) {
    throw new ApiError("system_resource", "Only the name of a system field can change");
  }
  if (changes.isUnique && !uniqueCapableTypes.has(type)) {
    throw new ApiError("invalid_request", "The field is not valid; see details.", [
      { path: "body.isUnique", message: `${type} fields cannot be unique` },
    ]);
  }
  if (changes.defaultValue !== undefined && changes.defaultValue !== null) {
    const check = isChoiceType(type)
      ? { ok: false as const, message: "Select fields take their default from the options' isDefault" }
      : checkDefaultValue({ type }, changes.defaultValue);
    if (!check.ok)
      throw new ApiError("invalid_request", "The field is not valid; see details.", [
        { path: "body.defaultValue", message: check.message },
      ]);
  }
  const statements: BatchItem<"sqlite">[] = [
    db
      .update(fieldDefinitions)
      .set({ ...changes, updatedAt: Date.now() })
      .where(eq(fieldDefinitions.id, fieldDefinitionId)),
  ];
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
    await runBatch(db, statements);
  } catch (error) {
    if (isIdentityViolation(error))
      throw new ApiError("conflict", "Live records share values of this field, so it cannot be unique");
    throw error;
  }
  const [updated] = await db.select().from(fieldDefinitions).where(eq(fieldDefinitions.id, fieldDefinitionId));
  if (!updated) throw new ApiError("not_found", "Field not found");
  const options = await db
    .select()
    .from(fieldOptions)
    .where(eq(fieldOptions.fieldDefinitionId, fieldDefinitionId))
    .orderBy(asc(fieldOptions.position));
  return c.json({ field: fieldResponse(updated, options) }, 200);
};
