import type { operations } from "@crm/contracts";
import { newId, regional } from "@crm/db";
import { runBatch } from "../../batch";
import { eventStatement } from "../../domain/events";
import { type NoteRow, noteResponse } from "../../domain/notes";
import { loadRecord } from "../../domain/records/store";
import { description } from "../../domain/tasks";
import type { OperationHandler } from "../../handler";

export const createNote: OperationHandler<typeof operations.createNote> = async (c) => {
  const { recordId } = c.req.valid("param");
  const input = c.req.valid("json");
  const { db, actor } = c.var;
  const record = await loadRecord(db, actor, recordId, "member");
  const { html, plain } = description(input.contentHtml, input.contentPlain);
  const now = Date.now();
  const row: NoteRow = {
    id: newId("note", now),
    workspaceId: record.workspaceId,
    recordId,
    title: input.title,
    contentHtml: html,
    contentPlain: plain,
    meetingId: null,
    createdBy: actor.actor.id,
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
  };
  const note = noteResponse(row);
  await runBatch(db, [
    db.insert(regional.notes).values(row),
    eventStatement(
      db,
      actor,
      { type: "note.created", workspaceId: row.workspaceId, objectTypeId: record.objectTypeId, data: note },
      now,
    ),
  ]);
  return c.json({ note }, 201);
};
