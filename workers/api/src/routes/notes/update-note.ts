import type { operations } from "@crm/contracts";
import { updateNoteOf } from "../../domain/notes/service";
import type { OperationHandler } from "../../handler";

export const updateNote: OperationHandler<typeof operations.updateNote> = async (c) => {
  const { noteId } = c.req.valid("param");
  return c.json({ note: await updateNoteOf(c.var, noteId, c.req.valid("json")) }, 200);
};
