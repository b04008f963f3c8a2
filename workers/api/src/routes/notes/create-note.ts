import type { operations } from "@crm/contracts";
import { createNoteOn } from "../../domain/notes/service";
import type { OperationHandler } from "../../handler";

export const createNote: OperationHandler<typeof operations.createNote> = async (c) => {
  const { recordId } = c.req.valid("param");
  return c.json({ note: await createNoteOn(c.var, recordId, c.req.valid("json")) }, 201);
};
