import { ApiError, type operations, type WorkspaceRole } from "@crm/contracts";
import { regional, runBatch } from "@crm/db";
import { and, asc, eq, inArray, max, ne } from "drizzle-orm";
import { loadInWorkspace, reachWorkspace } from "../../access";
import { changeWithoutLoss, nextUpdatedAt, runBatchAtVersion, runConditionalBatch } from "../../conditional-write";
import type { ServiceContext } from "../../env";
import type { BodyOf } from "../../inputs";
import { unindexObjectType } from "../records/search-index";
import { customObjectType, objectTypeStatements } from "./blueprints";
import { fieldRemovalStatements } from "./field-removal";
import { objectTypeResponse } from "./resources";

const { objectTypes, fieldDefinitions, fieldOptions, recordViews, records, recordValues } = regional;

/** `Vendor Contacts` → `vendor_contacts`; a name without letters gets a generic slug. */
export function slugFrom(name: string): string {
  const slug = name
    .normalize("NFKD")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^[^a-z]+|_+$/g, "")
    .slice(0, 63);
  return slug || "custom";
}

export const loadObjectType = ({ db, actor }: ServiceContext, id: string, role?: WorkspaceRole) =>
  loadInWorkspace(db, actor, objectTypes, id, { what: "Object type", role });

/** An object type as its writes answer it. */
export const readObjectType = async (context: ServiceContext, id: string) =>
  objectTypeResponse(await loadObjectType(context, id));

export async function listObjectTypesOf({ db, actor }: ServiceContext, workspaceId: string) {
  await reachWorkspace(db, actor, workspaceId, { what: "Workspace" });
  const rows = await db
    .select()
    .from(objectTypes)
    .where(eq(objectTypes.workspaceId, workspaceId))
    .orderBy(asc(objectTypes.position), asc(objectTypes.createdAt), asc(objectTypes.id));
  return rows.map(objectTypeResponse);
}

export async function createObjectTypeIn({ db, actor }: ServiceContext, input: BodyOf<typeof operations.createObjectType>) {
  await reachWorkspace(db, actor, input.workspaceId, { what: "Workspace", role: "admin" });
  const slug = input.slug ?? slugFrom(input.namePlural);
  const [[taken], [last]] = await Promise.all([
    db
      .select({ id: objectTypes.id })
      .from(objectTypes)
      .where(and(eq(objectTypes.workspaceId, input.workspaceId), eq(objectTypes.slug, slug))),
    db
      .select({ position: max(objectTypes.position) })
      .from(objectTypes)
      .where(eq(objectTypes.workspaceId, input.workspaceId)),
  ]);
  if (taken) throw new ApiError("conflict", `An object type with the slug "${slug}" exists in this workspace`, { slug });
  const now = Date.now();
  const blueprint = customObjectType({
    slug,
    nameSingular: input.nameSingular,
    namePlural: input.namePlural,
    ...(input.icon ? { icon: input.icon } : {}),
    ...(input.color ? { color: input.color } : {}),
  });
  const { objectTypeId, statements } = objectTypeStatements(db, blueprint, {
    workspaceId: input.workspaceId,
    position: (last?.position ?? -1) + 1,
    createdBy: actor.actor.id,
    now,
    objectTypeIds: new Map(),
  });
  await runBatch(db, statements);
  const [created] = await db.select().from(objectTypes).where(eq(objectTypes.id, objectTypeId));
  if (!created) throw new Error("object type vanished after creation");
  return objectTypeResponse(created);
}

/** Changes the named properties of an object type, conditionally (`changeWithoutLoss`). */
export async function updateObjectTypeOf(
  context: ServiceContext,
  objectTypeId: string,
  changes: BodyOf<typeof operations.updateObjectType>,
) {
  return changeWithoutLoss(context, {
    what: "Object type",
    named: Object.keys(changes),
    read: async () => {
      const objectType = await loadObjectType(context, objectTypeId, "admin");
      if (objectType.isSystem && changes.isActive === false) {
        throw new ApiError("system_resource", "System object types cannot be deactivated");
      }
      return objectType;
    },
    shown: objectTypeResponse,
    write: async (objectType) => {
      const updatedAt = nextUpdatedAt(objectType);
      await runConditionalBatch(context.db, objectTypes, objectType, changes, updatedAt);
      return objectTypeResponse({ ...objectType, ...changes, updatedAt });
    },
  });
}

/**
 * Permanent delete of a custom object type, in one batch (reference rule 4): its records with
 * their values and search rows, values elsewhere pointing at its records, relation fields of other types that
 * target it (removed as field deletes are, views included), its options, fields and views.
 */
export async function deleteObjectTypeOf(context: ServiceContext, objectTypeId: string): Promise<void> {
  const { db } = context;
  const objectType = await loadObjectType(context, objectTypeId, "admin");
  if (objectType.isSystem) throw new ApiError("system_resource", "System object types cannot be deleted");
  const pointingFields = await db
    .select({ id: fieldDefinitions.id, objectTypeId: fieldDefinitions.objectTypeId, type: fieldDefinitions.type })
    .from(fieldDefinitions)
    .where(and(eq(fieldDefinitions.relationObjectTypeId, objectTypeId), ne(fieldDefinitions.objectTypeId, objectTypeId)));
  const ownFields = db
    .select({ id: fieldDefinitions.id })
    .from(fieldDefinitions)
    .where(eq(fieldDefinitions.objectTypeId, objectTypeId));
  const ownRecords = db.select({ id: records.id }).from(records).where(eq(records.objectTypeId, objectTypeId));
  await runBatchAtVersion(context, objectTypes, objectTypeId, [
    db.delete(recordValues).where(inArray(recordValues.targetRecordId, ownRecords)),
    db.delete(recordValues).where(inArray(recordValues.recordId, ownRecords)),
    unindexObjectType(db, objectTypeId),
    ...(await fieldRemovalStatements(db, pointingFields)),
    db.delete(records).where(eq(records.objectTypeId, objectTypeId)),
    db.delete(fieldOptions).where(inArray(fieldOptions.fieldDefinitionId, ownFields)),
    db.delete(recordViews).where(eq(recordViews.objectTypeId, objectTypeId)),
    db.delete(fieldDefinitions).where(eq(fieldDefinitions.objectTypeId, objectTypeId)),
    db.delete(objectTypes).where(eq(objectTypes.id, objectTypeId)),
  ]);
}
