import { ApiError } from "@crm/contracts";
import { newId, regional } from "@crm/db";
import { eq } from "drizzle-orm";
import { runBatch } from "../../batch";
import { nextUpdatedAt, runConditionalBatch } from "../../conditional-write";
import type { Database } from "../../env";
import { changedKeys, type EventSource, eventStatement } from "../events";
import {
  checkReferences,
  identityConflict,
  identityMatches,
  isIdentityViolation,
  type RecordResponse,
  type RecordRow,
  recordFields,
  recordResponses,
  valueStatements,
} from "./store";
import { fieldsFrom, planValues, type RecordField, type StoredValue } from "./values";

const { records, recordValues } = regional;
/** Who writes: a request's actor, or `system` for internal producers such as the demo seed. */
type Actor = EventSource;

/** Validation of `fields` for a record of a workspace: 400 with every problem, 409 on an identity conflict. */
async function plan(
  db: Database,
  workspaceId: string,
  fields: RecordField[],
  input: Record<string, unknown>,
  mode: "create" | "update",
  recordId?: string,
) {
  const { planned, problems } = planValues(fields, input, mode);
  if (problems.length === 0) await checkReferences(db, workspaceId, fields, planned, problems);
  if (problems.length > 0) throw new ApiError("invalid_request", "The record is not valid; see details.", problems);
  const matches = await identityMatches(db, fields, planned, recordId);
  if (matches.length > 0) throw identityConflict(matches);
  return planned;
}

/** Runs the batch; a concurrent write that took a unique value first still ends as 409, never as 500. */
async function write(
  run: () => Promise<void>,
  db: Database,
  fields: RecordField[],
  planned: Map<string, StoredValue[]>,
  recordId: string,
) {
  try {
    await run();
  } catch (error) {
    if (isIdentityViolation(error)) throw identityConflict(await identityMatches(db, fields, planned, recordId));
    throw error;
  }
}

/** Creates a record with its values and its `record.created` event in one batch. */
export async function insertRecord(
  db: Database,
  actor: Actor,
  objectType: { id: string; workspaceId: string },
  input: Record<string, unknown>,
): Promise<RecordResponse> {
  const fields = await recordFields(db, objectType.id);
  const planned = await plan(db, objectType.workspaceId, fields, input, "create");
  const now = Date.now();
  const row: RecordRow = {
    id: newId("rec", now),
    workspaceId: objectType.workspaceId,
    objectTypeId: objectType.id,
    createdBy: actor.actor.id,
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
  };
  const { deletedAt: _live, ...visible } = row;
  const record = { ...visible, fields: fieldsFrom(fields, [...planned.values()].flat()) };
  await write(
    () =>
      runBatch(db, [
        db.insert(records).values(row),
        ...valueStatements(db, row.id, planned),
        eventStatement(
          db,
          actor,
          { type: "record.created", workspaceId: row.workspaceId, objectTypeId: row.objectTypeId, data: record },
          now,
        ),
      ]),
    db,
    fields,
    planned,
    row.id,
  );
  return record;
}

/**
 * Changes the given fields of a record, with `record.updated` (and `changedFields`) in the same
 * batch, only while the record is as read (`runConditionalBatch`): only the named fields' values are written.
 */
export async function writeRecordChanges(
  db: Database,
  actor: Actor,
  row: RecordRow,
  input: Record<string, unknown>,
): Promise<RecordResponse> {
  const fields = await recordFields(db, row.objectTypeId);
  const planned = await plan(db, row.workspaceId, fields, input, "update", row.id);
  const [before] = await recordResponses(db, fields, [row]);
  const updatedAt = nextUpdatedAt(row);
  const changed = fieldsFrom(
    fields.filter((field) => planned.has(field.id)),
    [...planned.values()].flat(),
  );
  const record = { ...(before as RecordResponse), fields: { ...before?.fields, ...changed }, updatedAt };
  const changedFields = changedKeys(changed, before?.fields ?? {}, record.fields);
  const statements = [
    ...valueStatements(db, row.id, planned),
    eventStatement(
      db,
      actor,
      {
        type: "record.updated",
        workspaceId: row.workspaceId,
        objectTypeId: row.objectTypeId,
        data: { ...record, changedFields },
      },
      updatedAt,
    ),
  ];
  await write(() => runConditionalBatch(db, records, row, {}, updatedAt, statements), db, fields, planned, row.id);
  return record;
}

/** Soft delete: hidden from every read, its unique values released, `record.deleted` emitted. */
export async function softDeleteRecord(db: Database, actor: Actor, row: RecordRow): Promise<void> {
  const now = Date.now();
  await runBatch(db, [
    db.update(records).set({ deletedAt: now, updatedAt: now }).where(eq(records.id, row.id)),
    db.update(recordValues).set({ identityKey: null }).where(eq(recordValues.recordId, row.id)),
    eventStatement(
      db,
      actor,
      {
        type: "record.deleted",
        workspaceId: row.workspaceId,
        objectTypeId: row.objectTypeId,
        data: { id: row.id, workspaceId: row.workspaceId, objectTypeId: row.objectTypeId },
      },
      now,
    ),
  ]);
}
