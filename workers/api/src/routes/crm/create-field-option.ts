import { ApiError, type FieldType, type operations } from "@crm/contracts";
import { newId, regional } from "@crm/db";
import { and, eq, max } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { runBatch } from "../../batch";
import { isChoiceType } from "../../domain/crm/field-types";
import { loadField, optionResponse } from "../../domain/crm/resources";
import type { OperationHandler } from "../../handler";
import { defaultOptionColor } from "./create-field";

const { fieldOptions } = regional;

export const createFieldOption: OperationHandler<typeof operations.createFieldOption> = async (c) => {
  const { fieldDefinitionId } = c.req.valid("param");
  const input = c.req.valid("json");
  const { db, actor } = c.var;
  const field = await loadField(db, actor, fieldDefinitionId, "admin");
  if (!isChoiceType(field.type as FieldType)) {
    throw new ApiError("invalid_request", "Only select and multiselect fields have options", [
      { path: "path.fieldDefinitionId", message: `A ${field.type} field` },
    ]);
  }
  const [[taken], [last]] = await Promise.all([
    db
      .select({ id: fieldOptions.id })
      .from(fieldOptions)
      .where(and(eq(fieldOptions.fieldDefinitionId, fieldDefinitionId), eq(fieldOptions.value, input.value))),
    db
      .select({ position: max(fieldOptions.position) })
      .from(fieldOptions)
      .where(eq(fieldOptions.fieldDefinitionId, fieldDefinitionId)),
  ]);
  if (taken) throw new ApiError("conflict", `The field already has an option "${input.value}"`, { value: input.value });
  const now = Date.now();
  const option = {
    id: newId("opt", now),
    fieldDefinitionId,
    value: input.value,
    label: input.label ?? input.value,
    color: input.color ?? defaultOptionColor,
    position: (last?.position ?? -1) + 1,
    isDefault: input.isDefault ?? false,
    isActive: true,
    createdAt: now,
    updatedAt: now,
  };
  const statements: BatchItem<"sqlite">[] = [];
  // One default per single-select field: the new default replaces the former, in the same batch.
  if (option.isDefault && field.type === "select") {
    statements.push(
      db
        .update(fieldOptions)
        .set({ isDefault: false, updatedAt: now })
        .where(eq(fieldOptions.fieldDefinitionId, fieldDefinitionId)),
    );
  }
  await runBatch(db, [...statements, db.insert(fieldOptions).values(option)]);
  return c.json({ option: optionResponse(option) }, 201);
};
