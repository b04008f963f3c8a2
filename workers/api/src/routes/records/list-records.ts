import { ApiError, type operations } from "@crm/contracts";
import { loadObjectType, loadView } from "../../domain/crm/resources";
import { queryRecordPage } from "../../domain/records/query";
import { recordFields, recordResponses } from "../../domain/records/store";
import type { OperationHandler } from "../../handler";

export const listRecords: OperationHandler<typeof operations.listRecords> = async (c) => {
  const { objectTypeId, viewId, limit, cursor } = c.req.valid("query");
  const { db, actor } = c.var;
  await loadObjectType(db, actor, objectTypeId);
  const view = viewId ? await loadView(db, actor, viewId) : undefined;
  if (view && view.objectTypeId !== objectTypeId) {
    throw new ApiError("invalid_request", "The view belongs to another object type", [
      { path: "query.viewId", message: "Not a view of this object type" },
    ]);
  }
  const fields = await recordFields(db, objectTypeId);
  const page = await queryRecordPage(
    db,
    {
      objectTypeId,
      fields,
      filter: view?.config.filter ?? null,
      sorts: view?.config.sorts ?? [],
      limit,
      ...(cursor ? { cursor } : {}),
    },
    c.env.CURSOR_SECRET,
    // A saved view that no longer fits (an option renamed under its filter) is named by the parameter that chose it.
    "query.viewId",
  );
  return c.json({ data: await recordResponses(db, fields, page.rows), pagination: page.pagination }, 200);
};
