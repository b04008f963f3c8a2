import { ApiError, type Problem } from "@crm/contracts";
import { inJsonList, insertRowsAsJson, regional } from "@crm/db";
import { and, eq, inArray, isNull, type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Database } from "../../database";
import { fieldsWithOptions } from "../crm/resources";
import { membersAmong } from "../workspace-members";
import { fieldsFrom, type RecordField, type StoredValue } from "./values";

const { records, recordValues } = regional;
export type RecordRow = typeof records.$inferSelect;

export const recordFields = (db: Database, objectTypeId: string): Promise<RecordField[]> => fieldsWithOptions(db, objectTypeId);

/** The values of records being validated, with the problems found so far (a batch validates many at once). */
export interface PlannedRecord {
  planned: Map<string, StoredValue[]>;
  problems: Problem[];
}

/** The ids among `ids` of live records of the object type in the workspace. */
async function liveRecordsAmong(db: Database, workspaceId: string, objectTypeId: string, ids: string[]): Promise<Set<string>> {
  const found = await db
    .select({ id: records.id })
    .from(records)
    .where(
      and(
        inJsonList(records.id, ids),
        eq(records.workspaceId, workspaceId),
        eq(records.objectTypeId, objectTypeId),
        isNull(records.deletedAt),
      ),
    );
  return new Set(found.map((row) => row.id));
}

/**
 * Relations must point at live records of the target type in the same workspace; users must be its
 * members. One query per relation or user field, however many records are checked.
 */
export async function checkReferences(db: Database, workspaceId: string, fields: RecordField[], plans: PlannedRecord[]) {
  for (const field of fields) {
    if (field.type !== "relation" && field.type !== "user") continue;
    const idsOf = (plan: PlannedRecord) =>
      (plan.planned.get(field.id) ?? []).flatMap((row) => (row.valueText === null ? [] : [row.valueText]));
    const ids = [...new Set(plans.flatMap(idsOf))];
    if (ids.length === 0) continue;
    const known =
      field.type === "relation"
        ? await liveRecordsAmong(db, workspaceId, field.relationObjectTypeId ?? "", ids)
        : await membersAmong(db, workspaceId, ids);
    for (const plan of plans) {
      for (const id of idsOf(plan)) {
        if (known.has(id)) continue;
        plan.problems.push({
          path: `fields.${field.slug}`,
          message:
            field.type === "relation"
              ? `${id} is not a record of the related object type in this workspace`
              : `${id} is not a member of this workspace`,
        });
      }
    }
  }
}

/** The planned unique values: what a record claims as its identity. */
export const identityClaims = (planned: Map<string, StoredValue[]>) =>
  [...planned.values()].flat().filter((row) => row.identityKey !== null);

/** The live records holding any of these unique values, in one query however many there are. */
export async function identityHolders(db: Database, claims: { fieldDefinitionId: string; identityKey: string | null }[]) {
  if (claims.length === 0) return [];
  const pairs = JSON.stringify(claims.map((claim) => [claim.fieldDefinitionId, claim.identityKey]));
  return db
    .select({
      recordId: recordValues.recordId,
      fieldDefinitionId: recordValues.fieldDefinitionId,
      identityKey: recordValues.identityKey,
      valueText: recordValues.valueText,
      valueNumber: recordValues.valueNumber,
    })
    .from(recordValues)
    .where(
      sql`(${recordValues.fieldDefinitionId}, ${recordValues.identityKey}) in (select value ->> 0, value ->> 1 from json_each(${pairs}))`,
    );
}

/** Live records other than `exceptId` that hold one of the planned unique values: the identity conflicts. */
export async function identityMatches(
  db: Database,
  fields: RecordField[],
  planned: Map<string, StoredValue[]>,
  exceptId?: string,
) {
  const holders = await identityHolders(db, identityClaims(planned));
  const slugOf = new Map(fields.map((field) => [field.id, field.slug]));
  return holders
    .filter((row) => row.recordId !== exceptId)
    .map((row) => ({
      recordId: row.recordId,
      field: slugOf.get(row.fieldDefinitionId) as string,
      value: row.valueText ?? row.valueNumber,
    }));
}

/** 409 naming who holds the values; `index` names the item of a batch that claims one first. */
export function identityConflict(matches: { recordId: string; field: string; value: unknown; index?: number }[]): ApiError {
  return new ApiError("identity_conflict", "A record with the same identity exists; nothing was created or changed", { matches });
}

/** Whether a failed batch broke the identity index: a concurrent write took the value first. */
export const isIdentityViolation = (error: unknown) =>
  String((error as Error)?.message ?? error).includes("record_values.identity_key");

/**
 * Replaces the stored rows of the planned fields of records: one delete and one insert however many
 * records, fields and multi-values there are (statements of a batch are prepared one by one).
 */
export function valueStatements(
  db: Database,
  written: { recordId: string; planned: Map<string, StoredValue[]> }[],
): BatchItem<"sqlite">[] {
  const pairs = written.flatMap(({ recordId, planned }) => [...planned.keys()].map((fieldId) => [recordId, fieldId]));
  if (pairs.length === 0) return [];
  const rows = written.flatMap(({ recordId, planned }) => [...planned.values()].flat().map((row) => ({ recordId, ...row })));
  return [
    db
      .delete(recordValues)
      .where(
        sql`(${recordValues.recordId}, ${recordValues.fieldDefinitionId}) in (select value ->> 0, value ->> 1 from json_each(${JSON.stringify(pairs)}))`,
      ),
    ...(rows.length > 0 ? [insertRowsAsJson(db, recordValues, rows)] : []),
  ];
}

/** The stored values of some records, in one query. */
export function valuesOf(db: Database, recordIds: string[]) {
  return db
    .select({
      recordId: recordValues.recordId,
      fieldDefinitionId: recordValues.fieldDefinitionId,
      position: recordValues.position,
      valueText: recordValues.valueText,
      valueNumber: recordValues.valueNumber,
    })
    .from(recordValues)
    .where(inArray(recordValues.recordId, recordIds));
}

type ValueRow = Awaited<ReturnType<typeof valuesOf>>[number];

/**
 * A record's stored values as one JSON column of a statement that reads records, so that the
 * records and their values come back in one round trip: `[[fieldDefinitionId, position, valueText,
 * valueNumber], …]`, read back by `valuesFromJson`.
 */
export const valuesJson = (recordId: SQL | SQLiteColumn) =>
  sql<string>`(select json_group_array(json_array(vj.field_definition_id, vj.position, vj.value_text, vj.value_number)) from ${recordValues} vj where vj.record_id = ${recordId})`;

export function valuesFromJson(recordId: string, json: string | null): ValueRow[] {
  return (JSON.parse(json ?? "[]") as [string, number, string | null, number | null][]).map(
    ([fieldDefinitionId, position, valueText, valueNumber]) => ({
      recordId,
      fieldDefinitionId,
      position,
      valueText,
      valueNumber,
    }),
  );
}

/** The public shape of records from their rows and stored values. */
export function responsesFrom(fields: RecordField[], rows: RecordRow[], values: ValueRow[]) {
  const byRecord = Map.groupBy(values, (value) => value.recordId);
  return rows.map((row) => ({
    id: row.id,
    workspaceId: row.workspaceId,
    objectTypeId: row.objectTypeId,
    fields: fieldsFrom(fields, byRecord.get(row.id) ?? []),
    createdBy: row.createdBy,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  }));
}

/** The public shape of records, values read in one query. */
export async function recordResponses(db: Database, fields: RecordField[], rows: RecordRow[]) {
  if (rows.length === 0) return [];
  return responsesFrom(
    fields,
    rows,
    await valuesOf(
      db,
      rows.map((row) => row.id),
    ),
  );
}

export type RecordResponse = Awaited<ReturnType<typeof recordResponses>>[number];
