import { ApiError, errorBody, inputNaming, operations } from "@crm/contracts";
import { regional, runBatch } from "@crm/db";
import { and, eq, isNull, sql } from "drizzle-orm";
import type { ServiceContext } from "../../env";
import type { BodyOf } from "../../inputs";
import { loadObjectType } from "../crm/object-types";
import { matchingKey, uniqueMatchingField } from "./matching";
import {
  checkReferences,
  identityClaims,
  identityConflict,
  identityHolders,
  isIdentityViolation,
  type PlannedRecord,
  type RecordResponse,
  type RecordRow,
  recordFields,
  recordResponses,
} from "./store";
import { planValues, type RecordField } from "./values";
import { newRecordRow, type RecordChange, type RecordCreation, recordWriteStatements } from "./write";

const { records } = regional;

type BatchBody = BodyOf<typeof operations.batchRecords>;

export interface BatchResult {
  index: number;
  status: number;
  record?: RecordResponse;
  error?: ReturnType<typeof errorBody>["error"];
}

/**
 * How often a batch is planned again when a concurrent write took one of its unique values between
 * the check and the write (the identity index refused the whole transaction): each new plan sees
 * that write, so the item that lost becomes a conflict (or, upserting, an update of the winner).
 */
const maxAttempts = 4;

/**
 * `POST /records/batch`: each item validated on its own, the valid ones written in one D1 batch
 * (one transaction: all of them or none) with one event each. Returns a result per item, in input
 * order, and how many records were written (what the request costs).
 */
export async function batchRecordsIn(context: ServiceContext, body: BatchBody) {
  const objectType = await loadObjectType(context, body.objectTypeId, "member");
  const fields = await recordFields(context.db, objectType.id);
  const matching = body.matchingField === undefined ? null : uniqueMatchingField(fields, body.matchingField);
  for (let attempt = 1; ; attempt++) {
    const planned = await planBatch(context, objectType, fields, matching, body);
    try {
      await runBatch(context.db, planned.statements);
      return { results: planned.results.sort((a, b) => a.index - b.index), written: planned.written };
    } catch (error) {
      if (!isIdentityViolation(error)) throw error;
      if (attempt === maxAttempts)
        throw new ApiError("identity_conflict", "Concurrent writes kept taking this batch's unique values; nothing was written", {
          matches: [],
        });
    }
  }
}

/** An item on its way: what it writes, or the error it ends with. */
interface ItemPlan extends PlannedRecord {
  index: number;
  /** Set for an item that changes a live record; a creation gets a fresh row. */
  target: { row: RecordRow } | null;
  row: RecordRow;
}

async function planBatch(
  context: ServiceContext,
  objectType: { id: string; workspaceId: string },
  fields: RecordField[],
  matching: RecordField | null,
  body: BatchBody,
) {
  const { db, actor } = context;
  const now = Date.now();
  const results: BatchResult[] = [];
  // An item's error is the one it would get as a single request, its inputs named as there (`body.fields.<slug>` on REST).
  const naming = inputNaming(actor.surface, operations.createRecord);
  const fail = (index: number, error: ApiError) =>
    results.push({ index, status: error.status, error: errorBody(error, actor.requestId, naming).error });

  const targets = await targetsOf(context, objectType, matching, body, fail);
  const plans: ItemPlan[] = [];
  for (const [index, item] of body.records.entries()) {
    const target = targets.get(index);
    if (target === undefined) continue;
    const { planned, problems } = planValues(fields, item.fields, target ? "update" : "create");
    plans.push({ index, target, planned, problems, row: target?.row ?? newRecordRow(actor, objectType, now) });
  }
  await checkReferences(
    db,
    objectType.workspaceId,
    fields,
    plans.filter((plan) => plan.problems.length === 0),
  );
  const valid = plans.filter((plan) => {
    if (plan.problems.length === 0) return true;
    fail(plan.index, new ApiError("invalid_request", "The record is not valid; see details.", plan.problems));
    return false;
  });
  const accepted = await withoutIdentityConflicts(context, fields, valid, fail);

  const changed = accepted.filter((plan) => plan.target !== null);
  const before = new Map(
    (
      await recordResponses(
        db,
        fields,
        changed.map((plan) => plan.row),
      )
    ).map((record) => [record.id, record]),
  );
  const creations: RecordCreation[] = accepted.filter((plan) => plan.target === null);
  const changes: RecordChange[] = changed.map((plan) => ({ ...plan, before: before.get(plan.row.id) as RecordResponse }));
  const { statements, records: written } = recordWriteStatements(db, actor, fields, { creations, changes }, now);
  const writtenById = new Map(written.map((record) => [record.id, record]));
  for (const plan of accepted)
    results.push({ index: plan.index, status: plan.target ? 200 : 201, record: writtenById.get(plan.row.id) as RecordResponse });
  return { statements, results, written: accepted.length };
}

/**
 * The live record each item changes (`null`: it creates one), for the items that resolve; the
 * others fail here: an unknown id (404), a missing or invalid matching value (400), a record named
 * by an earlier item too (409: the batch would write it twice).
 */
async function targetsOf(
  { db }: ServiceContext,
  objectType: { id: string; workspaceId: string },
  matching: RecordField | null,
  body: BatchBody,
  fail: (index: number, error: ApiError) => void,
) {
  const targets = new Map<number, { row: RecordRow } | null>();
  if (body.operation === "create") {
    for (const index of body.records.keys()) targets.set(index, null);
    return targets;
  }
  const keys = new Map<number, string>();
  if (matching) {
    for (const [index, item] of body.records.entries()) {
      try {
        keys.set(index, matchingKey(matching, item.fields));
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        fail(index, error);
      }
    }
  }
  const holders = matching
    ? await identityHolders(
        db,
        [...new Set(keys.values())].map((identityKey) => ({ fieldDefinitionId: matching.id, identityKey })),
      )
    : [];
  const holderOf = new Map(holders.map((holder) => [holder.identityKey, holder.recordId]));
  const ids = matching ? holders.map((holder) => holder.recordId) : body.records.map((item) => item.id as string);
  const rows =
    ids.length === 0
      ? []
      : await db
          .select()
          .from(records)
          .where(
            and(
              sql`${records.id} in (select value from json_each(${JSON.stringify(ids)}))`,
              eq(records.workspaceId, objectType.workspaceId),
              eq(records.objectTypeId, objectType.id),
              isNull(records.deletedAt),
            ),
          );
  const rowById = new Map(rows.map((row) => [row.id, row]));
  const firstIndexOf = new Map<string, number>();
  for (const [index, item] of body.records.entries()) {
    if (matching && !keys.has(index)) continue;
    const recordId = matching ? holderOf.get(keys.get(index) as string) : item.id;
    const row = recordId === undefined ? undefined : rowById.get(recordId);
    if (!matching && !row) {
      fail(index, new ApiError("not_found", "Record not found among the live records of this object type"));
      continue;
    }
    // An upsert matching a record an earlier item writes holds that item's value: an identity
    // conflict, as with any record. Two that create are caught with the other unique values.
    const earlier = row ? firstIndexOf.get(row.id) : undefined;
    if (row && earlier !== undefined) {
      fail(
        index,
        matching
          ? identityConflict([{ recordId: row.id, field: matching.slug, value: item.fields[matching.slug], index: earlier }])
          : new ApiError("conflict", `Item ${earlier} of this batch changes the same record`, { index: earlier }),
      );
      continue;
    }
    if (row) firstIndexOf.set(row.id, index);
    targets.set(index, row ? { row } : null);
  }
  return targets;
}

/**
 * The plans whose unique values no other live record holds and no earlier item of the batch claims;
 * the others fail with 409 `identity_conflict`, naming the record that holds the value (for an
 * earlier item, the record it creates or changes, and its `index`).
 */
async function withoutIdentityConflicts(
  { db }: ServiceContext,
  fields: RecordField[],
  plans: ItemPlan[],
  fail: (index: number, error: ApiError) => void,
) {
  const holders = await identityHolders(
    db,
    plans.flatMap((plan) => identityClaims(plan.planned)),
  );
  const slugOf = new Map(fields.map((field) => [field.id, field.slug]));
  const claimKey = (fieldId: string, key: string | null) => `${fieldId} ${key}`;
  const claimedBy = new Map<string, { recordId: string; index?: number }>();
  for (const holder of holders)
    claimedBy.set(claimKey(holder.fieldDefinitionId, holder.identityKey), { recordId: holder.recordId });
  const accepted: ItemPlan[] = [];
  for (const plan of plans) {
    const claims = identityClaims(plan.planned);
    const matches = claims.flatMap((claim) => {
      const holder = claimedBy.get(claimKey(claim.fieldDefinitionId, claim.identityKey));
      if (!holder || holder.recordId === plan.row.id) return [];
      return [
        {
          recordId: holder.recordId,
          field: slugOf.get(claim.fieldDefinitionId) as string,
          value: claim.valueText ?? claim.valueNumber,
          ...(holder.index === undefined ? {} : { index: holder.index }),
        },
      ];
    });
    if (matches.length > 0) {
      fail(plan.index, identityConflict(matches));
      continue;
    }
    for (const claim of claims)
      claimedBy.set(claimKey(claim.fieldDefinitionId, claim.identityKey), { recordId: plan.row.id, index: plan.index });
    accepted.push(plan);
  }
  return accepted;
}
