import { ApiError } from "@crm/contracts";
import { insertRowsAsJson, newId, regional, runBatch } from "@crm/db";
import { eq, inArray } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { nextUpdatedAt, runBatchAtVersion, runConditionalBatch } from "../../conditional-write";
import type { Database } from "../../database";
import { changedKeys, type EventInput, type EventSource, eventStatement, eventsStatement } from "../events";
import { reindexRecords } from "./search-index";
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
  const planned = planValues(fields, input, mode);
  if (planned.problems.length === 0) await checkReferences(db, workspaceId, fields, [planned]);
  if (planned.problems.length > 0)
    throw new ApiError("invalid_request", "The record is not valid; see details.", planned.problems);
  const matches = await identityMatches(db, fields, planned.planned, recordId);
  if (matches.length > 0) throw identityConflict(matches);
  return planned.planned;
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

/** A record to create: a fresh row with its validated values. */
export interface RecordCreation {
  row: RecordRow;
  planned: Map<string, StoredValue[]>;
}

/** A change of a live record: its row, its public shape before, the validated values of the given fields. */
export interface RecordChange {
  row: RecordRow;
  before: RecordResponse;
  planned: Map<string, StoredValue[]>;
}

/** The row of a record about to be created in `objectType` by `actor`. */
export function newRecordRow(actor: Actor, objectType: { id: string; workspaceId: string }, now: number): RecordRow {
  return {
    id: newId("rec", now),
    workspaceId: objectType.workspaceId,
    objectTypeId: objectType.id,
    createdBy: actor.actor.id,
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
  };
}

/**
 * Every statement that creates and changes records of one object type, whatever their number: rows,
 * values, search rows and one event per record, a handful of statements in all (each statement of a
 * D1 batch is prepared on its own). Returns the records as written, creations then changes.
 */
export function recordWriteStatements(
  db: Database,
  actor: Actor,
  fields: RecordField[],
  { creations, changes }: { creations: RecordCreation[]; changes: RecordChange[] },
  now: number,
) {
  const created = creations.map(({ row, planned }) => {
    const { deletedAt: _live, ...visible } = row;
    return { ...visible, fields: fieldsFrom(fields, [...planned.values()].flat()) };
  });
  const changed = changes.map(({ before, planned }) => {
    const given = fieldsFrom(
      fields.filter((field) => planned.has(field.id)),
      [...planned.values()].flat(),
    );
    const record = { ...before, fields: { ...before.fields, ...given }, updatedAt: now };
    return { record, changedFields: changedKeys(given, before.fields, record.fields) };
  });
  const events: EventInput<"record.created" | "record.updated">[] = [
    ...created.map((record) => ({
      type: "record.created" as const,
      workspaceId: record.workspaceId,
      objectTypeId: record.objectTypeId,
      data: record,
    })),
    ...changed.map(({ record, changedFields }) => ({
      type: "record.updated" as const,
      workspaceId: record.workspaceId,
      objectTypeId: record.objectTypeId,
      data: { ...record, changedFields },
    })),
  ];
  const statements: BatchItem<"sqlite">[] = [
    ...(creations.length > 0
      ? [
          insertRowsAsJson(
            db,
            records,
            creations.map((creation) => creation.row),
          ),
        ]
      : []),
    ...(changes.length > 0
      ? [
          db
            .update(records)
            .set({ updatedAt: now })
            .where(
              inArray(
                records.id,
                changes.map((change) => change.row.id),
              ),
            ),
        ]
      : []),
    ...valueStatements(
      db,
      [...creations, ...changes].map(({ row, planned }) => ({ recordId: row.id, planned })),
    ),
    ...reindexRecords(
      db,
      creations.map(({ row }) => row.id),
      true,
    ),
    ...reindexRecords(
      db,
      changes.map(({ row }) => row.id),
    ),
    ...eventsStatement(db, actor, events, now),
  ];
  return { statements, records: [...created, ...changed.map((change) => change.record)] };
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
  const row = newRecordRow(actor, objectType, now);
  const { statements, records: written } = recordWriteStatements(
    db,
    actor,
    fields,
    { creations: [{ row, planned }], changes: [] },
    now,
  );
  await write(() => runBatch(db, statements), db, fields, planned, row.id);
  return written[0] as RecordResponse;
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
  const { statements, records: written } = recordWriteStatements(
    db,
    actor,
    fields,
    { creations: [], changes: [{ row, before: before as RecordResponse, planned }] },
    updatedAt,
  );
  await write(() => runConditionalBatch(db, records, row, {}, updatedAt, statements), db, fields, planned, row.id);
  return written[0] as RecordResponse;
}

/**
 * Soft delete: hidden from every read and search, its unique values released, `record.deleted`
 * emitted; under `If-Match` (`precondition`) only at the version named.
 */
export async function softDeleteRecord(
  context: { db: Database; actor: Actor; precondition?: number },
  row: RecordRow,
): Promise<void> {
  const { db, actor } = context;
  const now = Date.now();
  await runBatchAtVersion(context, records, row.id, [
    db.update(records).set({ deletedAt: now, updatedAt: now }).where(eq(records.id, row.id)),
    db.update(recordValues).set({ identityKey: null }).where(eq(recordValues.recordId, row.id)),
    ...reindexRecords(db, [row.id]),
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
