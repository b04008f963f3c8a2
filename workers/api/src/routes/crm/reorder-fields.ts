import type { operations } from "@crm/contracts";
import { regional } from "@crm/db";
import { eq } from "drizzle-orm";
import { runBatch } from "../../batch";
import { checkPermutation, loadObjectType } from "../../domain/crm/resources";
import type { OperationHandler } from "../../handler";

const { fieldDefinitions } = regional;

export const reorderFields: OperationHandler<typeof operations.reorderFields> = async (c) => {
  const { objectTypeId } = c.req.valid("param");
  const { fieldDefinitionIds } = c.req.valid("json");
  const { db, actor } = c.var;
  await loadObjectType(db, actor, objectTypeId, "admin");
  const current = await db
    .select({ id: fieldDefinitions.id })
    .from(fieldDefinitions)
    .where(eq(fieldDefinitions.objectTypeId, objectTypeId));
  checkPermutation(
    fieldDefinitionIds,
    current.map((field) => field.id),
    "body.fieldDefinitionIds",
  );
  const now = Date.now();
  await runBatch(
    db,
    fieldDefinitionIds.map((id, position) =>
      db.update(fieldDefinitions).set({ position, updatedAt: now }).where(eq(fieldDefinitions.id, id)),
    ),
  );
  return c.json({ fieldDefinitionIds }, 200);
};
