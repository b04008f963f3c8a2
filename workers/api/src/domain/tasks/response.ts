import type { regional } from "@crm/db";

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
