import { ApiError } from "@crm/contracts";
import { insertRowsAsJson, regional } from "@crm/db";
import { and, eq, inArray, isNull, ne, or, type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Database } from "../../env";
import { fieldsWithOptions } from "../crm/resources";
import { fieldsFrom, type Problem, type RecordField, type StoredValue } from "./values";

const { records, recordValues, workspaceMembers } = regional;
export type RecordRow = typeof records.$inferSelect;

export const recordFields = (db: Database, objectTypeId: string): Promise<RecordField[]> => fieldsWithOptions(db, objectTypeId);

/** Relations must point at live records of the target type in the same workspace; users must be its members. */
export async function checkReferences(
  db: Database,
  workspaceId: string,
  fields: RecordField[],
  planned: Map<string, StoredValue[]>,
  problems: Problem[],
) {
  for (const field of fields) {
    const rows = planned.get(field.id)?.filter((row) => row.valueText !== null) ?? [];
    if (rows.length === 0 || (field.type !== "relation" && field.type !== "user")) continue;
    const ids = rows.map((row) => row.valueText as string);
    const found =
      field.type === "relation"
        ? await db
            .select({ id: records.id })
            .from(records)
            .where(
              and(
                inArray(records.id, ids),
                eq(records.workspaceId, workspaceId),
                eq(records.objectTypeId, field.relationObjectTypeId ?? ""),
                isNull(records.deletedAt),
              ),
            )
        : await db
            .select({ id: workspaceMembers.userId })
            .from(workspaceMembers)
            .where(and(eq(workspaceMembers.workspaceId, workspaceId), inArray(workspaceMembers.userId, ids)));
    const known = new Set(found.map((row) => row.id));
    for (const id of ids) {
      if (!known.has(id)) {
        problems.push({
          path: `body.fields.${field.slug}`,
          message:
            field.type === "relation"
              ? `${id} is not a record of the related object type in this workspace`
              : `${id} is not a member of this workspace`,
        });
      }
    }
  }
}

/** Live records other than `exceptId` that hold one of the planned unique values: the identity conflicts. */
export async function identityMatches(
  db: Database,
  fields: RecordField[],
  planned: Map<string, StoredValue[]>,
  exceptId?: string,
) {
  const keyed = [...planned.values()].flat().filter((row) => row.identityKey !== null);
  if (keyed.length === 0) return [];
  const conditions = keyed.map(
    (row) =>
      and(
        eq(recordValues.fieldDefinitionId, row.fieldDefinitionId),
        eq(recordValues.identityKey, row.identityKey as string),
      ) as SQL,
  );
  const rows = await db
    .select({
      recordId: recordValues.recordId,
      fieldDefinitionId: recordValues.fieldDefinitionId,
      valueText: recordValues.valueText,
      valueNumber: recordValues.valueNumber,
    })
    .from(recordValues)
    .where(and(or(...conditions), exceptId ? ne(recordValues.recordId, exceptId) : undefined));
  const slugOf = new Map(fields.map((field) => [field.id, field.slug]));
  return rows.map((row) => ({
    recordId: row.recordId,
    field: slugOf.get(row.fieldDefinitionId) as string,
    value: row.valueText ?? row.valueNumber,
  }));
}

export function identityConflict(matches: Awaited<ReturnType<typeof identityMatches>>): ApiError {
  return new ApiError("identity_conflict", "A record with the same identity exists; nothing was created or changed", { matches });
}

/** Whether a failed batch broke the identity index: a concurrent write took the value first. */
export const isIdentityViolation = (error: unknown) =>
  String((error as Error)?.message ?? error).includes("record_values.identity_key");

/** Replaces the stored rows of the planned fields of one record. */
export function valueStatements(db: Database, recordId: string, planned: Map<string, StoredValue[]>): BatchItem<"sqlite">[] {
  const fieldIds = [...planned.keys()];
  if (fieldIds.length === 0) return [];
  const rows = [...planned.values()].flat().map((row) => ({ recordId, ...row }));
  return [
    db.delete(recordValues).where(and(eq(recordValues.recordId, recordId), inArray(recordValues.fieldDefinitionId, fieldIds))),
    // Every value row in one statement, however many fields and multi-values the record has.
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
  return rows.map((row) => ({
    id: row.id,
    workspaceId: row.workspaceId,
    objectTypeId: row.objectTypeId,
    fields: fieldsFrom(
      fields,
      values.filter((value) => value.recordId === row.id),
    ),
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
