import type { operations } from "@crm/contracts";
import { loadNote, noteResponse } from "../../domain/notes";
import type { OperationHandler } from "../../handler";

export const getNote: OperationHandler<typeof operations.getNote> = async (c) => {
  const { noteId } = c.req.valid("param");
  return c.json({ note: noteResponse(await loadNote(c.var.db, c.var.actor, noteId)) }, 200);
};
