import type { operations } from "@crm/contracts";
import { regional } from "@crm/db";
import { and, eq, isNull, lt, sql } from "drizzle-orm";
import { requireWorkspaceRole } from "../../domain/crm/resources";
import { type TaskRow, taskResponse } from "../../domain/tasks";
import type { OperationHandler } from "../../handler";
import { creationOrder, paginate } from "../../pagination";

const { tasks } = regional;

export const listTasks: OperationHandler<typeof operations.listTasks> = async (c) => {
  const { workspaceId, assigneeUserId, status, dueBeforeMs, limit, cursor } = c.req.valid("query");
  const { db, actor } = c.var;
  await requireWorkspaceRole(db, actor, workspaceId);
  const page = await paginate<TaskRow>(
    {
      scope: `tasks:${workspaceId}:${assigneeUserId ?? ""}:${status ?? ""}:${dueBeforeMs ?? ""}`,
      limit,
      cursor,
      order: creationOrder(tasks),
      fetch: ({ after, orderBy, limit }) =>
        db
          .select()
          .from(tasks)
          .where(
            and(
              eq(tasks.workspaceId, workspaceId),
              isNull(tasks.deletedAt),
              status ? eq(tasks.status, status) : undefined,
              dueBeforeMs === undefined ? undefined : lt(tasks.dueAt, dueBeforeMs),
              // Assignees are a JSON list; json_each finds the task when the user is one of them.
              assigneeUserId
                ? sql`exists (select 1 from json_each(${tasks.assigneeUserIds}) where value = ${assigneeUserId})`
                : undefined,
              after,
            ),
          )
          .orderBy(...orderBy)
          .limit(limit),
    },
    c.env.CURSOR_SECRET,
  );
  return c.json({ data: page.data.map(taskResponse), pagination: page.pagination }, 200);
};
