import type { operations, WorkspaceRole } from "@crm/contracts";
import { newId, regional, runBatch } from "@crm/db";
import { and, eq, isNull } from "drizzle-orm";
import { loadInWorkspace } from "../../access";
import { changeWithoutLoss, nextUpdatedAt, runBatchAtVersion, runConditionalBatch } from "../../conditional-write";
import type { ServiceContext } from "../../env";
import type { BodyOf, QueryOf } from "../../inputs";
import { creationOrder, paginate } from "../../pagination";
import { sanitizedContent } from "../content/description";
import { changedKeys, eventStatement } from "../events";
import { objectTypeOfRecord } from "../records/object-type-of";
import { loadRecord } from "../records/service";

const { notes } = regional;
type NoteRow = typeof notes.$inferSelect;

const noteResponse = (row: NoteRow) => ({
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

const loadNote = ({ db, actor }: ServiceContext, id: string, role?: WorkspaceRole) =>
  loadInWorkspace(db, actor, notes, id, { what: "Note", role });

export async function createNoteOn(context: ServiceContext, recordId: string, input: BodyOf<typeof operations.createNote>) {
  const { db, actor } = context;
  const record = await loadRecord(context, recordId, "member");
  const { html, plain } = sanitizedContent("contentHtml", input.contentHtml, input.contentPlain);
  const now = Date.now();
  const row: NoteRow = {
    id: newId("note", now),
    workspaceId: record.workspaceId,
    recordId,
    title: input.title,
    contentHtml: html,
    contentPlain: plain,
    meetingId: null,
    createdBy: actor.actor.id,
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
  };
  const note = noteResponse(row);
  await runBatch(db, [
    db.insert(notes).values(row),
    eventStatement(
      db,
      actor,
      { type: "note.created", workspaceId: row.workspaceId, objectTypeId: record.objectTypeId, data: note },
      now,
    ),
  ]);
  return note;
}

export const readNote = async (context: ServiceContext, noteId: string) => noteResponse(await loadNote(context, noteId));

/** Changes a note's named properties, conditionally (`changeWithoutLoss`); `note.updated` lists the keys whose value changed, as tasks and records do. */
export async function updateNoteOf(context: ServiceContext, noteId: string, changes: BodyOf<typeof operations.updateNote>) {
  const { db, actor } = context;
  return changeWithoutLoss(context, {
    what: "Note",
    named: Object.keys(changes),
    read: () => loadNote(context, noteId, "member"),
    shown: noteResponse,
    write: async (note) => {
      const content =
        changes.contentHtml !== undefined
          ? sanitizedContent("contentHtml", changes.contentHtml, changes.contentPlain)
          : undefined;
      const columns: Partial<NoteRow> = {
        ...(changes.title === undefined ? {} : { title: changes.title }),
        ...(content ? { contentHtml: content.html, contentPlain: content.plain } : {}),
        ...(!content && changes.contentPlain !== undefined ? { contentPlain: changes.contentPlain } : {}),
      };
      const updatedAt = nextUpdatedAt(note);
      const response = noteResponse({ ...note, ...columns, updatedAt });
      const event = eventStatement(
        db,
        actor,
        {
          type: "note.updated",
          workspaceId: note.workspaceId,
          objectTypeId: await objectTypeOfRecord(db, note.recordId),
          data: { ...response, changedFields: changedKeys(changes, noteResponse(note), response) },
        },
        updatedAt,
      );
      await runConditionalBatch(db, notes, note, columns, updatedAt, [event]);
      return response;
    },
  });
}

/** Soft delete: the note leaves every list and read for good; under `If-Match`, only at the version named. */
export async function deleteNoteOf(context: ServiceContext, noteId: string): Promise<void> {
  const { db, actor } = context;
  const note = await loadNote(context, noteId, "member");
  const now = Date.now();
  await runBatchAtVersion(context, notes, noteId, [
    db.update(notes).set({ deletedAt: now, updatedAt: now }).where(eq(notes.id, noteId)),
    eventStatement(
      db,
      actor,
      {
        type: "note.deleted",
        workspaceId: note.workspaceId,
        objectTypeId: await objectTypeOfRecord(db, note.recordId),
        data: { id: note.id, recordId: note.recordId, workspaceId: note.workspaceId },
      },
      now,
    ),
  ]);
}

/** The live notes of one record, oldest first. */
export async function listNotesOfRecord(
  context: ServiceContext,
  recordId: string,
  { limit, cursor }: QueryOf<typeof operations.listNotes>,
) {
  const { db, cursorSecret } = context;
  await loadRecord(context, recordId);
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
    cursorSecret,
  );
  return { data: page.data.map(noteResponse), pagination: page.pagination };
}
