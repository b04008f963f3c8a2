import { ApiError, type operations } from "@crm/contracts";
import { regional } from "@crm/db";
import { and, eq, ne } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { runBatch } from "../../batch";
import { fieldsWithOptions, loadView, viewResponse } from "../../domain/crm/resources";
import { checkView, type ViewShape, viewTypeOf } from "../../domain/crm/view-config";
import type { OperationHandler } from "../../handler";

const { recordViews } = regional;

export const updateView: OperationHandler<typeof operations.updateView> = async (c) => {
  const { viewId } = c.req.valid("param");
  const changes = c.req.valid("json");
  const { db, actor } = c.var;
  const view = await loadView(db, actor, viewId, "manager");
  if (changes.isDefault === false && view.isDefault) {
    throw new ApiError("invalid_request", "Make another view the default instead", [
      { path: "body.isDefault", message: "An object type keeps one default view" },
    ]);
  }
  const fieldGiven = changes.kanbanFieldDefinitionId !== undefined;
  const kanbanFieldDefinitionId = fieldGiven ? (changes.kanbanFieldDefinitionId ?? null) : view.kanbanFieldDefinitionId;
  // Naming the board's field (or null) decides the type as on creation; otherwise the type stays.
  const type = changes.type ?? (fieldGiven ? viewTypeOf(undefined, kanbanFieldDefinitionId) : view.type);
  // Switching to a table without naming a field drops the board's settings rather than refusing the change.
  const boardDropped = type === "table" && !fieldGiven;
  // Win and loss ids are options of the board's field: they do not carry over to another field.
  const keepOutcomes = !boardDropped && kanbanFieldDefinitionId === view.kanbanFieldDefinitionId;
  const shape: ViewShape = {
    type,
    config: changes.config ?? view.config,
    kanbanFieldDefinitionId: boardDropped ? null : kanbanFieldDefinitionId,
    kanbanWinOptionIds: changes.kanbanWinOptionIds ?? (keepOutcomes ? view.kanbanWinOptionIds : []),
    kanbanLossOptionIds: changes.kanbanLossOptionIds ?? (keepOutcomes ? view.kanbanLossOptionIds : []),
  };
  checkView(shape, await fieldsWithOptions(db, view.objectTypeId));
  const now = Date.now();
  const updated = {
    ...view,
    ...shape,
    name: changes.name ?? view.name,
    emoji: changes.emoji === undefined ? view.emoji : changes.emoji,
    isDefault: changes.isDefault ?? view.isDefault,
    updatedAt: now,
  };
  const statements: BatchItem<"sqlite">[] = [];
  if (updated.isDefault && !view.isDefault) {
    statements.push(
      db
        .update(recordViews)
        .set({ isDefault: false })
        .where(and(eq(recordViews.objectTypeId, view.objectTypeId), ne(recordViews.id, viewId))),
    );
  }
  await runBatch(db, [...statements, db.update(recordViews).set(updated).where(eq(recordViews.id, viewId))]);
  return c.json({ view: viewResponse(updated) }, 200);
};
