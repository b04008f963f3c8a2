import { ApiError, type FieldType, type operations } from "@crm/contracts";
import { regional } from "@crm/db";
import { asc, eq } from "drizzle-orm";
import { checkDefaultValue, isChoiceType, uniqueCapableTypes } from "../../domain/crm/field-types";
import { fieldResponse, loadField } from "../../domain/crm/resources";
import type { OperationHandler } from "../../handler";

const { fieldDefinitions, fieldOptions } = regional;

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
  const [updated] = await db
    .update(fieldDefinitions)
    .set({ ...changes, updatedAt: Date.now() })
    .where(eq(fieldDefinitions.id, fieldDefinitionId))
    .returning();
  if (!updated) throw new ApiError("not_found", "Field not found");
  const options = await db
    .select()
    .from(fieldOptions)
    .where(eq(fieldOptions.fieldDefinitionId, fieldDefinitionId))
    .orderBy(asc(fieldOptions.position));
  return c.json({ field: fieldResponse(updated, options) }, 200);
};
