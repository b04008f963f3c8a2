import type { operations } from "@crm/contracts";
import { regional } from "@crm/db";
import { and, eq, isNull } from "drizzle-orm";
import { loadRecord } from "../../domain/records/store";
import { type TaskRow, taskResponse } from "../../domain/tasks";
import type { OperationHandler } from "../../handler";
import { creationOrder, paginate } from "../../pagination";

const { tasks } = regional;

export const listRecordTasks: OperationHandler<typeof operations.listRecordTasks> = async (c) => {
  const { recordId } = c.req.valid("param");
  const { limit, cursor, status } = c.req.valid("query");
  const { db, actor } = c.var;
  await loadRecord(db, actor, recordId);
  const page = await paginate<TaskRow>(
    {
      scope: `tasks:${recordId}:${status ?? ""}`,
      limit,
      cursor,
      order: creationOrder(tasks),
      fetch: ({ after, orderBy, limit }) =>
        db
          .select()
          .from(tasks)
          .where(and(eq(tasks.recordId, recordId), isNull(tasks.deletedAt), status ? eq(tasks.status, status) : undefined, after))
          .orderBy(...orderBy)
          .limit(limit),
    },
    c.env.CURSOR_SECRET,
  );
  return c.json({ data: page.data.map(taskResponse), pagination: page.pagination }, 200);
};
