import { ApiError, type operations } from "@crm/contracts";
import { regional } from "@crm/db";
import { and, eq, ne } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { runBatch } from "../../batch";
import { loadField, optionResponse } from "../../domain/crm/resources";
import type { OperationHandler } from "../../handler";

const { fieldOptions, recordValues } = regional;

export const updateFieldOption: OperationHandler<typeof operations.updateFieldOption> = async (c) => {
  const { fieldDefinitionId, fieldOptionId } = c.req.valid("param");
  const changes = c.req.valid("json");
  const { db, actor } = c.var;
  const field = await loadField(db, actor, fieldDefinitionId, "admin");
  const [option] = await db
    .select()
    .from(fieldOptions)
    .where(and(eq(fieldOptions.id, fieldOptionId), eq(fieldOptions.fieldDefinitionId, fieldDefinitionId)));
  if (!option) throw new ApiError("not_found", "Option not found");
  if (changes.isActive === false && changes.isDefault === true) {
    throw new ApiError("invalid_request", "An inactive option cannot be the default", [
      { path: "body.isDefault", message: "The option is being deactivated" },
    ]);
  }
  const renamed = changes.value !== undefined && changes.value !== option.value;
  if (renamed) {
    const [taken] = await db
      .select({ id: fieldOptions.id })
      .from(fieldOptions)
      .where(
        and(
          eq(fieldOptions.fieldDefinitionId, fieldDefinitionId),
          eq(fieldOptions.value, changes.value as string),
          ne(fieldOptions.id, fieldOptionId),
        ),
      );
    if (taken) throw new ApiError("conflict", `The field already has an option "${changes.value}"`, { value: changes.value });
  }
  const now = Date.now();
  const next = {
    ...option,
    ...changes,
    // A deactivated option stops being the default.
    isDefault: changes.isActive === false ? false : (changes.isDefault ?? option.isDefault),
    updatedAt: now,
  };
  const statements: BatchItem<"sqlite">[] = [];
  if (next.isDefault && !option.isDefault && field.type === "select") {
    statements.push(
      db
        .update(fieldOptions)
        .set({ isDefault: false, updatedAt: now })
        .where(eq(fieldOptions.fieldDefinitionId, fieldDefinitionId)),
    );
  }
  statements.push(db.update(fieldOptions).set(next).where(eq(fieldOptions.id, fieldOptionId)));
  // Records hold an option by its value: a new value follows onto every record that had the old one.
  if (renamed) {
    statements.push(
      db
        .update(recordValues)
        .set({ valueText: next.value })
        .where(and(eq(recordValues.fieldDefinitionId, fieldDefinitionId), eq(recordValues.valueText, option.value))),
    );
  }
  await runBatch(db, statements);
  return c.json({ option: optionResponse(next) }, 200);
};
