import type { regional } from "@crm/db";
import { peopleIn } from "../../directory";
import type { ServiceContext } from "../../env";

export type TaskRow = typeof regional.tasks.$inferSelect;

export const taskResponse = (row: TaskRow) => ({
  id: row.id,
  workspaceId: row.workspaceId,
  title: row.title,
  status: row.status,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
  recordId: row.recordId,
  descriptionHtml: row.descriptionHtml,
  descriptionPlain: row.descriptionPlain,
  dueAt: row.dueAt,
  assigneeUserIds: row.assigneeUserIds,
  linkedResources: row.linkedResources,
  source: row.sourceType && row.sourceId ? { resourceType: row.sourceType, resourceId: row.sourceId } : null,
  createdBy: row.createdBy,
});

export type TaskResponse = ReturnType<typeof taskResponse>;

/**
 * Tasks as the API shows them: beside `assigneeUserIds`, each assignee as the members directory
 * names them, read in one directory call for every task shown (events keep the ids only).
 */
export async function shownTasks({ actor, directory }: Pick<ServiceContext, "actor" | "directory">, shown: TaskResponse[]) {
  const people = await directory.people(
    actor.organizationId,
    shown.flatMap((task) => task.assigneeUserIds),
  );
  return shown.map((task) => ({ ...task, assignees: peopleIn(task.assigneeUserIds, people) }));
}

export async function shownTask(context: Pick<ServiceContext, "actor" | "directory">, task: TaskResponse) {
  const [shown] = await shownTasks(context, [task]);
  return shown as Awaited<ReturnType<typeof shownTasks>>[number];
}
