import { ApiError, type FieldType, type operations, type WorkspaceRole } from "@crm/contracts";
import { newId, regional, runBatch } from "@crm/db";
import { and, eq, max, ne } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { changeWithoutLoss, nextUpdatedAt, runConditionalBatch } from "../../conditional-write";
import type { ServiceContext } from "../../env";
import type { BodyOf } from "../../inputs";
import { reindexOptionHolders } from "../records/search-index";
import { defaultOptionColor } from "./field-creation";
import { isChoiceType } from "./field-types";
import { loadField } from "./fields";
import { optionResponse } from "./resources";

const { fieldOptions, recordValues } = regional;

/** A new option at the end of a select or multiselect field; a new default replaces the former one. */
export async function createFieldOptionOn(
  context: ServiceContext,
  fieldDefinitionId: string,
  input: BodyOf<typeof operations.createFieldOption>,
) {
  const { db } = context;
  const field = await loadField(context, fieldDefinitionId, "admin");
  if (!isChoiceType(field.type as FieldType)) {
    throw new ApiError("invalid_request", "Only select and multiselect fields have options", [
      { path: "fieldDefinitionId", message: `A ${field.type} field` },
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
  return optionResponse(option);
}

/** An option of a field, with its field. */
async function loadOption(context: ServiceContext, fieldDefinitionId: string, fieldOptionId: string, role?: WorkspaceRole) {
  const field = await loadField(context, fieldDefinitionId, role);
  const [option] = await context.db
    .select()
    .from(fieldOptions)
    .where(and(eq(fieldOptions.id, fieldOptionId), eq(fieldOptions.fieldDefinitionId, fieldDefinitionId)));
  if (!option) throw new ApiError("not_found", "Option not found");
  return { field, option };
}

/** An option as its writes answer it, and its version (`updatedAt`, which the option's representation does not show). */
export async function readFieldOption(context: ServiceContext, fieldDefinitionId: string, fieldOptionId: string) {
  const { option } = await loadOption(context, fieldDefinitionId, fieldOptionId);
  return { option: optionResponse(option), updatedAt: option.updatedAt };
}

/** Changes an option's named properties, conditionally (`changeWithoutLoss`); a new value follows onto every record that held the old one. */
export async function updateFieldOptionOf(
  context: ServiceContext,
  fieldDefinitionId: string,
  fieldOptionId: string,
  changes: BodyOf<typeof operations.updateFieldOption>,
) {
  const { db } = context;
  return changeWithoutLoss(context, {
    what: "Option",
    named: Object.keys(changes),
    read: () => loadOption(context, fieldDefinitionId, fieldOptionId, "admin"),
    // The version beside what the option shows: `If-Match` pins the change to it.
    shown: ({ option }) => ({ ...optionResponse(option), updatedAt: option.updatedAt }),
    write: async ({ field, option }) => {
      if (changes.isActive === false && changes.isDefault === true) {
        throw new ApiError("invalid_request", "An inactive option cannot be the default", [
          { path: "isDefault", message: "The option is being deactivated" },
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
      const updatedAt = nextUpdatedAt(option);
      const columns = {
        ...changes,
        // A deactivated option stops being the default.
        ...(changes.isActive === false ? { isDefault: false } : {}),
      };
      const next = { ...option, ...columns, updatedAt };
      const statements: BatchItem<"sqlite">[] = [];
      if (next.isDefault && !option.isDefault && field.type === "select") {
        statements.push(
          db
            .update(fieldOptions)
            .set({ isDefault: false, updatedAt })
            .where(and(eq(fieldOptions.fieldDefinitionId, fieldDefinitionId), ne(fieldOptions.id, fieldOptionId))),
        );
      }
      // Records hold an option by its value: a new value follows onto every record that had the old one.
      if (renamed) {
        statements.push(
          db
            .update(recordValues)
            .set({ valueText: next.value })
            .where(and(eq(recordValues.fieldDefinitionId, fieldDefinitionId), eq(recordValues.valueText, option.value))),
        );
      }
      // Records holding the option are found by its label.
      if (next.label !== option.label) statements.push(...reindexOptionHolders(db, fieldDefinitionId, next.value));
      await runConditionalBatch(db, fieldOptions, option, columns, updatedAt, statements);
      return optionResponse(next);
    },
  });
}
