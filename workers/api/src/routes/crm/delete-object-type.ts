import { ApiError, type operations } from "@crm/contracts";
import { regional } from "@crm/db";
import { and, eq, inArray, ne } from "drizzle-orm";
import { fieldRemovalStatements } from "../../domain/crm/field-removal";
import { loadObjectType } from "../../domain/crm/resources";
import type { OperationHandler } from "../../handler";

const { objectTypes, fieldDefinitions, fieldOptions, recordViews, records, recordValues } = regional;

/**
 * Permanent delete of a custom object type, in one batch (reference rule 4): its records with
 * their values, values elsewhere pointing at its records, relation fields of other types that
 * target it (removed as field deletes are, views included), its options, fields and views.
 */
export const deleteObjectType: OperationHandler<typeof operations.deleteObjectType> = async (c) => {
  const { objectTypeId } = c.req.valid("param");
  const { db, actor } = c.var;
  const objectType = await loadObjectType(db, actor, objectTypeId, "admin");
  if (objectType.isSystem) throw new ApiError("system_resource", "System object types cannot be deleted");
  const pointingFields = await db
    .select({ id: fieldDefinitions.id, objectTypeId: fieldDefinitions.objectTypeId })
    .from(fieldDefinitions)
    .where(and(eq(fieldDefinitions.relationObjectTypeId, objectTypeId), ne(fieldDefinitions.objectTypeId, objectTypeId)));
  const ownFields = db
    .select({ id: fieldDefinitions.id })
    .from(fieldDefinitions)
    .where(eq(fieldDefinitions.objectTypeId, objectTypeId));
  const ownRecords = db.select({ id: records.id }).from(records).where(eq(records.objectTypeId, objectTypeId));
  await db.batch([
    db.delete(recordValues).where(inArray(recordValues.targetRecordId, ownRecords)),
    db.delete(recordValues).where(inArray(recordValues.recordId, ownRecords)),
    ...(await fieldRemovalStatements(db, pointingFields)),
    db.delete(records).where(eq(records.objectTypeId, objectTypeId)),
    db.delete(fieldOptions).where(inArray(fieldOptions.fieldDefinitionId, ownFields)),
    db.delete(recordViews).where(eq(recordViews.objectTypeId, objectTypeId)),
    db.delete(fieldDefinitions).where(eq(fieldDefinitions.objectTypeId, objectTypeId)),
    db.delete(objectTypes).where(eq(objectTypes.id, objectTypeId)),
  ]);
  return c.json({ deletedId: objectTypeId }, 200);
};
