import type { operations } from "@crm/contracts";
import { regional } from "@crm/db";
import { eq } from "drizzle-orm";
import { runBatch } from "../../batch";
import { eventStatement } from "../../domain/events";
import { loadNote } from "../../domain/notes";
import type { OperationHandler } from "../../handler";

export const deleteNote: OperationHandler<typeof operations.deleteNote> = async (c) => {
  const { noteId } = c.req.valid("param");
  const { db, actor } = c.var;
  const note = await loadNote(db, actor, noteId, "member");
  const now = Date.now();
  await runBatch(db, [
    db.update(regional.notes).set({ deletedAt: now, updatedAt: now }).where(eq(regional.notes.id, noteId)),
    eventStatement(
      db,
      actor,
      {
        type: "note.deleted",
        workspaceId: note.workspaceId,
        data: { id: note.id, recordId: note.recordId, workspaceId: note.workspaceId },
      },
      now,
    ),
  ]);
  return c.json({ deletedId: noteId }, 200);
};
