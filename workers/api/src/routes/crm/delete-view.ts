import type { operations } from "@crm/contracts";
import { regional } from "@crm/db";
import { and, asc, eq, ne } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { runBatch } from "../../batch";
import { loadView } from "../../domain/crm/resources";
import type { OperationHandler } from "../../handler";

const { recordViews } = regional;

export const deleteView: OperationHandler<typeof operations.deleteView> = async (c) => {
  const { viewId } = c.req.valid("param");
  const { db, actor } = c.var;
  const view = await loadView(db, actor, viewId, "manager");
  const statements: BatchItem<"sqlite">[] = [db.delete(recordViews).where(eq(recordViews.id, viewId))];
  if (view.isDefault) {
    // The first remaining view becomes the default, so the object type keeps one.
    const [next] = await db
      .select({ id: recordViews.id })
      .from(recordViews)
      .where(and(eq(recordViews.objectTypeId, view.objectTypeId), ne(recordViews.id, viewId)))
      .orderBy(asc(recordViews.position), asc(recordViews.id))
      .limit(1);
    if (next)
      statements.push(db.update(recordViews).set({ isDefault: true, updatedAt: Date.now() }).where(eq(recordViews.id, next.id)));
  }
  await runBatch(db, statements);
  return c.json({ deletedId: viewId }, 200);
};
