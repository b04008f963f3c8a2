import type { operations } from "@crm/contracts";
import { regional } from "@crm/db";
import { eq } from "drizzle-orm";
import { runBatch } from "../../batch";
import { eventStatement } from "../../domain/events";
import { loadNote, type NoteRow, noteResponse } from "../../domain/notes";
import { description } from "../../domain/tasks";
import type { OperationHandler } from "../../handler";

export const updateNote: OperationHandler<typeof operations.updateNote> = async (c) => {
  const { noteId } = c.req.valid("param");
  const changes = c.req.valid("json");
  const { db, actor } = c.var;
  const note = await loadNote(db, actor, noteId, "member");
  const content =
    changes.contentHtml !== undefined
      ? description(changes.contentHtml, changes.contentPlain)
      : { html: note.contentHtml, plain: changes.contentPlain ?? note.contentPlain };
  const now = Date.now();
  const updated: NoteRow = {
    ...note,
    title: changes.title ?? note.title,
    contentHtml: content.html,
    contentPlain: content.plain,
    updatedAt: now,
  };
  const response = noteResponse(updated);
  await runBatch(db, [
    db.update(regional.notes).set(updated).where(eq(regional.notes.id, noteId)),
    eventStatement(
      db,
      actor,
      { type: "note.updated", workspaceId: note.workspaceId, data: { ...response, changedFields: Object.keys(changes) } },
      now,
    ),
  ]);
  return c.json({ note: response }, 200);
};
