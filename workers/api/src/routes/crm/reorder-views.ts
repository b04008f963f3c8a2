import type { operations } from "@crm/contracts";
import { regional } from "@crm/db";
import { eq } from "drizzle-orm";
import { runBatch } from "../../batch";
import { checkPermutation, loadObjectType } from "../../domain/crm/resources";
import type { OperationHandler } from "../../handler";

const { recordViews } = regional;

export const reorderViews: OperationHandler<typeof operations.reorderViews> = async (c) => {
  const { objectTypeId } = c.req.valid("param");
  const { viewIds } = c.req.valid("json");
  const { db, actor } = c.var;
  await loadObjectType(db, actor, objectTypeId, "manager");
  const current = await db.select({ id: recordViews.id }).from(recordViews).where(eq(recordViews.objectTypeId, objectTypeId));
  checkPermutation(
    viewIds,
    current.map((view) => view.id),
    "body.viewIds",
  );
  const now = Date.now();
  await runBatch(
    db,
    viewIds.map((id, position) => db.update(recordViews).set({ position, updatedAt: now }).where(eq(recordViews.id, id))),
  );
  return c.json({ viewIds }, 200);
};
