import { ApiError, type operations } from "@crm/contracts";
import { regional } from "@crm/db";
import { and, eq, isNull } from "drizzle-orm";
import { reach } from "../../domain/crm/resources";
import { type RecordResponse, recordFields, responsesFrom, valuesOf } from "../../domain/records/store";
import type { OperationHandler } from "../../handler";

const { records } = regional;

/** One record: once its row is found, access, fields and values are read together. */
export const getRecord: OperationHandler<typeof operations.getRecord> = async (c) => {
  const { recordId } = c.req.valid("param");
  const { db, actor } = c.var;
  const [record] = await db
    .select()
    .from(records)
    .where(and(eq(records.id, recordId), isNull(records.deletedAt)))
    .limit(1);
  if (!record) throw new ApiError("not_found", "Record not found");
  const [, fields, values] = await Promise.all([
    reach(db, actor, record.workspaceId, "Record"),
    recordFields(db, record.objectTypeId),
    valuesOf(db, [record.id]),
  ]);
  const [response] = responsesFrom(fields, [record], values);
  return c.json({ record: response as RecordResponse }, 200);
};
