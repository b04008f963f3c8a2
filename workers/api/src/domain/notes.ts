import { ApiError, type WorkspaceRole } from "@crm/contracts";
import { regional } from "@crm/db";
import { and, eq, isNull } from "drizzle-orm";
import type { AppEnv, Database } from "../env";
import { reach } from "./crm/resources";

const { notes } = regional;
export type NoteRow = typeof notes.$inferSelect;

export const noteResponse = (row: NoteRow) => ({
  id: row.id,
  workspaceId: row.workspaceId,
  recordId: row.recordId,
  title: row.title,
  contentHtml: row.contentHtml,
  contentPlain: row.contentPlain,
  createdBy: row.createdBy,
  ...(row.meetingId ? { meetingId: row.meetingId } : {}),
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
});

/** A live note the actor may reach: unknown, deleted and other organizations' notes are the same 404. */
export async function loadNote(
  db: Database,
  actor: AppEnv["Variables"]["actor"],
  id: string,
  role?: WorkspaceRole,
): Promise<NoteRow> {
  const [note] = await db
    .select()
    .from(notes)
    .where(and(eq(notes.id, id), isNull(notes.deletedAt)))
    .limit(1);
  if (!note) throw new ApiError("not_found", "Note not found");
  await reach(db, actor, note.workspaceId, "Note", role);
  return note;
}
