import type { operations } from "@crm/contracts";
import { newId, regional } from "@crm/db";
import { eq, max } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { runBatch } from "../../batch";
import { fieldsWithOptions, loadObjectType, viewResponse } from "../../domain/crm/resources";
import { checkView, type ViewShape, viewTypeOf } from "../../domain/crm/view-config";
import type { OperationHandler } from "../../handler";

const { recordViews } = regional;

export const emptyViewConfig = { columns: [], filter: null, sorts: [], groupBy: null };

export const createView: OperationHandler<typeof operations.createView> = async (c) => {
  const { objectTypeId } = c.req.valid("param");
  const input = c.req.valid("json");
  const { db, actor } = c.var;
  const objectType = await loadObjectType(db, actor, objectTypeId, "manager");
  const shape: ViewShape = {
    type: viewTypeOf(input.type, input.kanbanFieldDefinitionId),
    config: input.config ?? emptyViewConfig,
    kanbanFieldDefinitionId: input.kanbanFieldDefinitionId ?? null,
    kanbanWinOptionIds: input.kanbanWinOptionIds ?? [],
    kanbanLossOptionIds: input.kanbanLossOptionIds ?? [],
  };
  const [fields, [last], [existing]] = await Promise.all([
    fieldsWithOptions(db, objectTypeId),
    db
      .select({ position: max(recordViews.position) })
      .from(recordViews)
      .where(eq(recordViews.objectTypeId, objectTypeId)),
    db.select({ id: recordViews.id }).from(recordViews).where(eq(recordViews.objectTypeId, objectTypeId)).limit(1),
  ]);
  checkView(shape, fields);
  const now = Date.now();
  const view = {
    id: newId("view", now),
    workspaceId: objectType.workspaceId,
    objectTypeId,
    name: input.name,
    emoji: input.emoji ?? null,
    // The first view of a type is its default: there is always exactly one while views exist.
    isDefault: input.isDefault ?? !existing,
    position: (last?.position ?? -1) + 1,
    ...shape,
    createdBy: actor.actor.id,
    createdAt: now,
    updatedAt: now,
  };
  const statements: BatchItem<"sqlite">[] = [];
  if (view.isDefault)
    statements.push(db.update(recordViews).set({ isDefault: false }).where(eq(recordViews.objectTypeId, objectTypeId)));
  await runBatch(db, [...statements, db.insert(recordViews).values(view)]);
  return c.json({ view: viewResponse(view) }, 201);
};
