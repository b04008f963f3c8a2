import { ApiError, type operations } from "@crm/contracts";
import { regional } from "@crm/db";
import { and, eq } from "drizzle-orm";
import { checkScalar } from "../../domain/crm/field-types";
import { loadObjectType } from "../../domain/crm/resources";
import { loadRecord, recordFields } from "../../domain/records/store";
import { identityKeyOf } from "../../domain/records/values";
import { createRecordOf, updateRecordOf } from "../../domain/records/write";
import type { OperationHandler } from "../../handler";

const { recordValues } = regional;

/** `PUT /records?matchingField=`: update the live record holding the unique value, or create one. */
export const assertRecord: OperationHandler<typeof operations.assertRecord> = async (c) => {
  const { matchingField } = c.req.valid("query");
  const { objectTypeId, fields: input } = c.req.valid("json");
  const { db, actor } = c.var;
  const objectType = await loadObjectType(db, actor, objectTypeId, "member");
  const fields = await recordFields(db, objectTypeId);
  const matching = fields.find((field) => field.slug === matchingField);
  if (!matching?.isUnique) {
    throw new ApiError("invalid_request", "matchingField must name a unique field of the object type", [
      { path: "query.matchingField", message: matching ? "Not a unique field" : "Not a field of this object type" },
    ]);
  }
  const value = checkScalar({ type: matching.type }, input[matchingField]);
  if (!value.ok || typeof value.value === "boolean") {
    throw new ApiError("invalid_request", "fields must set the matching field", [
      { path: `body.fields.${matchingField}`, message: value.ok ? "Required to match" : value.message },
    ]);
  }
  const [match] = await db
    .select({ recordId: recordValues.recordId })
    .from(recordValues)
    .where(and(eq(recordValues.fieldDefinitionId, matching.id), eq(recordValues.identityKey, identityKeyOf(value.value))))
    .limit(1);
  if (match) {
    const record = await loadRecord(db, actor, match.recordId, "member");
    return c.json({ record: await updateRecordOf(db, actor, record, input) }, 200);
  }
  return c.json({ record: await createRecordOf(db, actor, objectType, input) }, 201);
};
