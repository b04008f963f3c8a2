import type { operations } from "@crm/contracts";
import { listNotesOfRecord } from "../../domain/notes/service";
import type { OperationHandler } from "../../handler";

export const listNotes: OperationHandler<typeof operations.listNotes> = async (c) => {
  const { recordId } = c.req.valid("param");
  return c.json(await listNotesOfRecord(c.var, recordId, c.req.valid("query")), 200);
};
