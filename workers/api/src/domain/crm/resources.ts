import { ApiError, type FieldType, type WorkspaceRole } from "@crm/contracts";
import { regional } from "@crm/db";
import { asc, eq, inArray } from "drizzle-orm";
import { requireRole, requireWorkspace } from "../../access";
import type { AppEnv, Database } from "../../env";

const { objectTypes, fieldDefinitions, fieldOptions, recordViews } = regional;

type ObjectTypeRow = typeof objectTypes.$inferSelect;
type FieldRow = typeof fieldDefinitions.$inferSelect;
type OptionRow = typeof fieldOptions.$inferSelect;
type ViewRow = typeof recordViews.$inferSelect;
type Actor = AppEnv["Variables"]["actor"];

/**
 * Loading a CRM resource by id for an actor: unknown ids and ids of another organization are the
 * same 404; the workspace must be within the credential's reach (403), and the actor's role at
 * least `role` when given (403 `forbidden`).
 */
export async function reach(db: Database, actor: Actor, workspaceId: string, what: string, role?: WorkspaceRole) {
  try {
    const { access } = await requireWorkspace(db, actor, workspaceId);
    if (role) requireRole(access, role);
    return access;
  } catch (error) {
    if (error instanceof ApiError && error.code === "not_found") throw new ApiError("not_found", `${what} not found`);
    throw error;
  }
}

export async function loadObjectType(db: Database, actor: Actor, id: string, role?: WorkspaceRole): Promise<ObjectTypeRow> {
  const [objectType] = await db.select().from(objectTypes).where(eq(objectTypes.id, id)).limit(1);
  if (!objectType) throw new ApiError("not_found", "Object type not found");
  await reach(db, actor, objectType.workspaceId, "Object type", role);
  return objectType;
}

export async function loadField(db: Database, actor: Actor, id: string, role?: WorkspaceRole): Promise<FieldRow> {
  const [field] = await db.select().from(fieldDefinitions).where(eq(fieldDefinitions.id, id)).limit(1);
  if (!field) throw new ApiError("not_found", "Field not found");
  await reach(db, actor, field.workspaceId, "Field", role);
  return field;
}

export async function loadView(db: Database, actor: Actor, id: string, role?: WorkspaceRole): Promise<ViewRow> {
  const [view] = await db.select().from(recordViews).where(eq(recordViews.id, id)).limit(1);
  if (!view) throw new ApiError("not_found", "View not found");
  await reach(db, actor, view.workspaceId, "View", role);
  return view;
}

export const requireWorkspaceRole = (db: Database, actor: Actor, workspaceId: string, role?: WorkspaceRole) =>
  reach(db, actor, workspaceId, "Workspace", role);

/** The options of some fields, in their order. */
export async function optionsOf(db: Database, fieldIds: string[]) {
  if (fieldIds.length === 0) return [];
  return db
    .select()
    .from(fieldOptions)
    .where(inArray(fieldOptions.fieldDefinitionId, fieldIds))
    .orderBy(asc(fieldOptions.position), asc(fieldOptions.id));
}

/** The fields of an object type in their order, each with its options in theirs (two queries, run together). */
export async function fieldsWithOptions(db: Database, objectTypeId: string) {
  const [fields, options] = await Promise.all([
    db
      .select()
      .from(fieldDefinitions)
      .where(eq(fieldDefinitions.objectTypeId, objectTypeId))
      .orderBy(asc(fieldDefinitions.position), asc(fieldDefinitions.id)),
    db
      .select()
      .from(fieldOptions)
      .where(
        inArray(
          fieldOptions.fieldDefinitionId,
          db.select({ id: fieldDefinitions.id }).from(fieldDefinitions).where(eq(fieldDefinitions.objectTypeId, objectTypeId)),
        ),
      )
      .orderBy(asc(fieldOptions.position), asc(fieldOptions.id)),
  ]);
  return fields.map((field) => ({
    ...field,
    type: field.type as FieldType,
    options: options.filter((option) => option.fieldDefinitionId === field.id),
  }));
}

/** Response shapes: every field of the reference's tables, timestamps in ms, absent optionals left out. */
export const objectTypeResponse = (row: ObjectTypeRow) => ({
  id: row.id,
  workspaceId: row.workspaceId,
  slug: row.slug,
  name: row.namePlural,
  nameSingular: row.nameSingular,
  namePlural: row.namePlural,
  ...(row.icon === null ? {} : { icon: row.icon }),
  ...(row.color === null ? {} : { color: row.color }),
  isSystem: row.isSystem,
  isActive: row.isActive,
  order: row.position,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
});

export const optionResponse = (row: OptionRow) => ({
  id: row.id,
  fieldDefinitionId: row.fieldDefinitionId,
  value: row.value,
  label: row.label,
  order: row.position,
  isDefault: row.isDefault,
  isActive: row.isActive,
  color: row.color,
});

/** Select fields keep their default on the options (`isDefault`); other types in the field. */
function defaultValueOf(row: FieldRow, options: OptionRow[]): unknown {
  const defaults = options.filter((option) => option.isDefault && option.isActive).map((option) => option.value);
  if (row.type === "select") return defaults[0] ?? null;
  if (row.type === "multiselect") return defaults.length > 0 ? defaults : null;
  return row.defaultValue ?? null;
}

export const fieldResponse = (row: FieldRow, options: OptionRow[]) => ({
  id: row.id,
  objectTypeId: row.objectTypeId,
  workspaceId: row.workspaceId,
  slug: row.slug,
  name: row.name,
  type: row.type as FieldType,
  isRequired: row.isRequired,
  isUnique: row.isUnique,
  defaultValue: defaultValueOf(row, options),
  isSystem: row.isSystem,
  isMultiple: row.isMultiple,
  relationObjectTypeId: row.relationObjectTypeId,
  order: row.position,
  ...(row.type === "select" || row.type === "multiselect" ? { options: options.map(optionResponse) } : {}),
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
});

export const viewResponse = (row: ViewRow) => ({
  id: row.id,
  workspaceId: row.workspaceId,
  objectTypeId: row.objectTypeId,
  name: row.name,
  type: row.type,
  isDefault: row.isDefault,
  config: row.config,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
  ...(row.emoji === null ? {} : { emoji: row.emoji }),
  order: row.position,
  createdBy: row.createdBy,
  ...(row.kanbanFieldDefinitionId === null ? {} : { kanbanFieldDefinitionId: row.kanbanFieldDefinitionId }),
  kanbanWinOptionIds: row.kanbanWinOptionIds,
  kanbanLossOptionIds: row.kanbanLossOptionIds,
});

/** Reorder bodies must be exactly the current set, each id once (DESIGN.md section 6). */
export function checkPermutation(given: string[], current: string[], path: string): void {
  const currentSet = new Set(current);
  const givenSet = new Set(given);
  const problems: { path: string; message: string }[] = [];
  given.forEach((id, i) => {
    if (!currentSet.has(id)) problems.push({ path: `${path}.${i}`, message: "Not one of the object type's items" });
  });
  if (givenSet.size !== given.length) problems.push({ path, message: "An id appears more than once" });
  const missing = current.filter((id) => !givenSet.has(id));
  if (missing.length > 0)
    problems.push({ path, message: `Missing ${missing.length} of the object type's items: ${missing.join(", ")}` });
  if (problems.length > 0)
    throw new ApiError("invalid_request", "The new order must list every item exactly once; see details.", problems);
}
