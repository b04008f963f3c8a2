import type { operations } from "@crm/contracts";
import { loadObjectType } from "../../domain/crm/resources";
import { queryRecordPage } from "../../domain/records/query";
import { recordFields, recordResponses } from "../../domain/records/store";
import type { OperationHandler } from "../../handler";

export const queryRecords: OperationHandler<typeof operations.queryRecords> = async (c) => {
  const { objectTypeId, filter, sorts, limit, cursor } = c.req.valid("json");
  const { db, actor } = c.var;
  await loadObjectType(db, actor, objectTypeId);
  const fields = await recordFields(db, objectTypeId);
  const page = await queryRecordPage(
    db,
    { objectTypeId, fields, filter: filter ?? null, sorts: sorts ?? [], limit, ...(cursor ? { cursor } : {}) },
    c.env.CURSOR_SECRET,
    // The query body has filter and sorts at its top level.
    "body",
  );
  return c.json({ data: await recordResponses(db, fields, page.rows), pagination: page.pagination }, 200);
};
