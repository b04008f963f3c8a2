import type { FieldType } from "@crm/contracts";
import { regional } from "@crm/db";
import { eq, inArray } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Database } from "../../database";
import { reindexObjectType, searchableTypes } from "../records/search-index";
import { type ViewShape, viewMentionsField, viewWithoutField } from "./view-config";

const { fieldDefinitions, fieldOptions, recordViews, recordValues } = regional;

/**
 * The statements that remove fields for good (reference rule 3): their stored values and
 * relations, what search finds of them, their options, every mention in the saved views of their object types, and the
 * definitions. Views are rewritten here, in the same batch as the rest.
 */
export async function fieldRemovalStatements(
  db: Database,
  fields: { id: string; objectTypeId: string; type: string }[],
  now = Date.now(),
): Promise<BatchItem<"sqlite">[]> {
  if (fields.length === 0) return [];
  const fieldIds = fields.map((field) => field.id);
  const objectTypeIds = [...new Set(fields.map((field) => field.objectTypeId))];
  const views = await db.select().from(recordViews).where(inArray(recordViews.objectTypeId, objectTypeIds));
  const statements: BatchItem<"sqlite">[] = [
    db.delete(recordValues).where(inArray(recordValues.fieldDefinitionId, fieldIds)),
    // Records are no longer found by what the fields held.
    ...objectTypeIds
      .filter((objectTypeId) =>
        fields.some((field) => field.objectTypeId === objectTypeId && searchableTypes.includes(field.type as FieldType)),
      )
      .flatMap((objectTypeId) => reindexObjectType(db, objectTypeId)),
    db.delete(fieldOptions).where(inArray(fieldOptions.fieldDefinitionId, fieldIds)),
  ];
  for (const view of views) {
    const before: ViewShape = view;
    const after = fieldIds.reduce((shape, fieldId) => viewWithoutField(shape, fieldId), before);
    if (fieldIds.some((fieldId) => viewMentionsField(before, fieldId))) {
      statements.push(
        db
          .update(recordViews)
          .set({ ...after, updatedAt: now })
          .where(eq(recordViews.id, view.id)),
      );
    }
  }
  statements.push(db.delete(fieldDefinitions).where(inArray(fieldDefinitions.id, fieldIds)));
  return statements;
}
