import type { operations } from "@crm/contracts";
import { deleteNoteOf } from "../../domain/notes/service";
import type { OperationHandler } from "../../handler";

export const deleteNote: OperationHandler<typeof operations.deleteNote> = async (c) => {
  const { noteId } = c.req.valid("param");
  await deleteNoteOf(c.var, noteId);
  return c.json({ deletedId: noteId }, 200);
};
