import type { operations } from "@crm/contracts";
import { readNote } from "../../domain/notes/service";
import type { OperationHandler } from "../../handler";

export const getNote: OperationHandler<typeof operations.getNote> = async (c) => {
  const { noteId } = c.req.valid("param");
  return c.json({ note: await readNote(c.var, noteId) }, 200);
};
