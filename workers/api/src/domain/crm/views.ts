import { ApiError, type operations, type WorkspaceRole } from "@crm/contracts";
import { newId, regional, runBatch } from "@crm/db";
import { and, asc, eq, max, ne } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { loadInWorkspace } from "../../access";
import { changeWithoutLoss, nextUpdatedAt, runBatchAtVersion, runConditionalBatch } from "../../conditional-write";
import { withCreators } from "../../directory";
import type { ServiceContext } from "../../env";
import type { BodyOf, QueryOf } from "../../inputs";
import { paginate } from "../../pagination";
import { loadObjectType } from "./object-types";
import { checkPermutation, fieldsWithOptions, viewResponse } from "./resources";
import { checkView, type ViewShape, viewTypeOf } from "./view-config";

const { recordViews } = regional;
type ViewRow = typeof recordViews.$inferSelect;

const emptyViewConfig = { columns: [], filter: null, sorts: [], groupBy: null };

export const loadView = ({ db, actor }: ServiceContext, id: string, role?: WorkspaceRole) =>
  loadInWorkspace(db, actor, recordViews, id, { what: "View", role });

/** Record views as the API shows them, with their creators as the members directory shows them. */
const shownViews = (context: ServiceContext, rows: ViewRow[]) =>
  withCreators(context, rows.map(viewResponse), (view) => view.createdBy);

const shownView = async (context: ServiceContext, row: ViewRow) =>
  (await shownViews(context, [row]))[0] as Awaited<ReturnType<typeof shownViews>>[number];

export const readView = async (context: ServiceContext, viewId: string) => shownView(context, await loadView(context, viewId));

/** The views of an object type in their order. */
export async function listViewsOf(
  context: ServiceContext,
  objectTypeId: string,
  { limit, cursor }: QueryOf<typeof operations.listViews>,
) {
  const { db, cursorSecret } = context;
  await loadObjectType(context, objectTypeId);
  const page = await paginate<ViewRow>(
    {
      scope: `views:${objectTypeId}`,
      limit,
      cursor,
      order: [
        { column: recordViews.position, direction: "asc", valueIn: (view) => view.position },
        { column: recordViews.id, direction: "asc", valueIn: (view) => view.id },
      ],
      fetch: ({ after, orderBy, limit }) =>
        db
          .select()
          .from(recordViews)
          .where(and(eq(recordViews.objectTypeId, objectTypeId), after))
          .orderBy(...orderBy)
          .limit(limit),
    },
    cursorSecret,
  );
  return { data: await shownViews(context, page.data), pagination: page.pagination };
}

/** A new view of an object type, checked against its fields; the first view of a type is its default. */
export async function createViewOn(context: ServiceContext, objectTypeId: string, input: BodyOf<typeof operations.createView>) {
  const { db, actor } = context;
  const objectType = await loadObjectType(context, objectTypeId, "manager");
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
  return shownView(context, view);
}

const shapeKeys = ["type", "config", "kanbanFieldDefinitionId", "kanbanWinOptionIds", "kanbanLossOptionIds"] as const;

/**
 * Changes a view, checked against its object type's fields as on creation. Only the named
 * properties are written (its shape as a whole when any part of it is named), conditionally.
 */
export async function updateViewOf(context: ServiceContext, viewId: string, changes: BodyOf<typeof operations.updateView>) {
  const { db } = context;
  return changeWithoutLoss(context, {
    what: "View",
    named: Object.keys(changes),
    read: () => loadView(context, viewId, "manager"),
    shown: viewResponse,
    write: async (view) => {
      if (changes.isDefault === false && view.isDefault) {
        throw new ApiError("invalid_request", "Make another view the default instead", [
          { path: "isDefault", message: "An object type keeps one default view" },
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
      const columns = {
        ...(shapeKeys.some((key) => changes[key] !== undefined) ? shape : {}),
        ...(changes.name === undefined ? {} : { name: changes.name }),
        ...(changes.emoji === undefined ? {} : { emoji: changes.emoji }),
        ...(changes.isDefault === undefined ? {} : { isDefault: changes.isDefault }),
      };
      const updatedAt = nextUpdatedAt(view);
      const updated = { ...view, ...columns, updatedAt };
      const statements: BatchItem<"sqlite">[] = [];
      if (updated.isDefault && !view.isDefault) {
        statements.push(
          db
            .update(recordViews)
            .set({ isDefault: false })
            .where(and(eq(recordViews.objectTypeId, view.objectTypeId), ne(recordViews.id, viewId))),
        );
      }
      await runConditionalBatch(db, recordViews, view, columns, updatedAt, statements);
      return shownView(context, updated);
    },
  });
}

/** Removes a view (under `If-Match`, only at the version named); when it was the default, the first remaining view becomes it. */
export async function deleteViewOf(context: ServiceContext, viewId: string): Promise<void> {
  const { db } = context;
  const view = await loadView(context, viewId, "manager");
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
  await runBatchAtVersion(context, recordViews, viewId, statements);
}

/** The views' new order: exactly the current set, each once. */
export async function reorderViewsOf(context: ServiceContext, objectTypeId: string, viewIds: string[]): Promise<void> {
  const { db } = context;
  await loadObjectType(context, objectTypeId, "manager");
  const current = await db.select({ id: recordViews.id }).from(recordViews).where(eq(recordViews.objectTypeId, objectTypeId));
  checkPermutation(
    viewIds,
    current.map((view) => view.id),
    "viewIds",
  );
  const now = Date.now();
  await runBatch(
    db,
    viewIds.map((id, position) => db.update(recordViews).set({ position, updatedAt: now }).where(eq(recordViews.id, id))),
  );
}
