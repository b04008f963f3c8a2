import { ApiError, type operations } from "@crm/contracts";
import { runBatch } from "../../batch";
import { fieldRemovalStatements } from "../../domain/crm/field-removal";
import { loadField } from "../../domain/crm/resources";
import type { OperationHandler } from "../../handler";

export const deleteField: OperationHandler<typeof operations.deleteField> = async (c) => {
  const { fieldDefinitionId } = c.req.valid("param");
  const { db, actor } = c.var;
  const field = await loadField(db, actor, fieldDefinitionId, "admin");
  if (field.isSystem) throw new ApiError("system_resource", "System fields cannot be deleted");
  await runBatch(db, await fieldRemovalStatements(db, [field]));
  return c.json({ deletedId: fieldDefinitionId }, 200);
};
