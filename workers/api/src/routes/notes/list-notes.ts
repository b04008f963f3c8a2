import type { operations } from "@crm/contracts";
import { regional } from "@crm/db";
import { and, eq, isNull } from "drizzle-orm";
import { type NoteRow, noteResponse } from "../../domain/notes";
import { loadRecord } from "../../domain/records/store";
import type { OperationHandler } from "../../handler";
import { creationOrder, paginate } from "../../pagination";

const { notes } = regional;

export const listNotes: OperationHandler<typeof operations.listNotes> = async (c) => {
  const { recordId } = c.req.valid("param");
  const { limit, cursor } = c.req.valid("query");
  const { db, actor } = c.var;
  await loadRecord(db, actor, recordId);
  const page = await paginate<NoteRow>(
    {
      scope: `notes:${recordId}`,
      limit,
      cursor,
      order: creationOrder(notes),
      fetch: ({ after, orderBy, limit }) =>
        db
          .select()
          .from(notes)
          .where(and(eq(notes.recordId, recordId), isNull(notes.deletedAt), after))
          .orderBy(...orderBy)
          .limit(limit),
    },
    c.env.CURSOR_SECRET,
  );
  return c.json({ data: page.data.map(noteResponse), pagination: page.pagination }, 200);
};
