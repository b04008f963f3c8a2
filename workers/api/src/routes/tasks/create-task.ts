import type { operations } from "@crm/contracts";
import { newId, regional } from "@crm/db";
import { runBatch } from "../../batch";
import { eventStatement } from "../../domain/events";
import { loadRecord } from "../../domain/records/store";
import { checkAssignees, description, linkedConversation, type TaskRow, taskResponse } from "../../domain/tasks";
import type { OperationHandler } from "../../handler";

export const createTask: OperationHandler<typeof operations.createTask> = async (c) => {
  const { recordId } = c.req.valid("param");
  const input = c.req.valid("json");
  const { db, actor } = c.var;
  const record = await loadRecord(db, actor, recordId, "member");
  const assigneeUserIds = [...new Set(input.assigneeUserIds ?? [])];
  await checkAssignees(db, record.workspaceId, assigneeUserIds);
  const linked = input.conversationId ? [await linkedConversation(db, record.workspaceId, input.conversationId)] : [];
  const { html, plain } = description(input.descriptionHtml, input.descriptionPlain);
  const now = Date.now();
  const row: TaskRow = {
    id: newId("task", now),
    workspaceId: record.workspaceId,
    recordId,
    title: input.title,
    status: input.status ?? "todo",
    descriptionHtml: html,
    descriptionPlain: plain,
    dueAt: input.dueAt ?? null,
    assigneeUserIds,
    linkedResources: linked,
    sourceType: null,
    sourceId: null,
    createdBy: actor.actor.id,
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
  };
  const task = taskResponse(row);
  await runBatch(db, [
    db.insert(regional.tasks).values(row),
    eventStatement(
      db,
      actor,
      { type: "task.created", workspaceId: row.workspaceId, objectTypeId: record.objectTypeId, data: task },
      now,
    ),
  ]);
  return c.json({ task }, 201);
};
