import { ApiError, type operations, type WorkspaceRole } from "@crm/contracts";
import { regional, rowJson, rowsFromJson } from "@crm/db";
import { and, eq, isNull, sql } from "drizzle-orm";
import { loadInWorkspace, memberJoin, reachFrom, type WorkspaceAccess } from "../../access";
import { compiledOnce, compiledRows, preparedOnce } from "../../compiled-statements";
import { changeWithoutLoss } from "../../conditional-write";
import type { ServiceContext } from "../../env";
import type { BodyOf, QueryOf } from "../../inputs";
import { loadObjectType } from "../crm/object-types";
import { fieldsWithOptionsFromJson } from "../crm/resources";
import { loadView } from "../crm/views";
import { matchingKey, uniqueMatchingField } from "./matching";
import { queryRecordPage } from "./query";
import { type RecordResponse, recordFields, recordResponses, responsesFrom, valuesFromJson, valuesJson } from "./store";
import { insertRecord, softDeleteRecord, writeRecordChanges } from "./write";

const { records, recordValues, fieldDefinitions, fieldOptions, objectTypes, workspaces, workspaceMembers } = regional;

/** A live record the actor may reach; tasks and notes load the record they hang on through it too. */
export const loadRecord = ({ db, actor }: ServiceContext, id: string, role?: WorkspaceRole) =>
  loadInWorkspace(db, actor, records, id, { what: "Record", role });

export async function createRecordIn(context: ServiceContext, objectTypeId: string, fields: Record<string, unknown>) {
  const objectType = await loadObjectType(context, objectTypeId, "member");
  return insertRecord(context.db, context.actor, objectType, fields);
}

/**
 * One record in one statement: its row, its workspace with the actor's membership, and, as JSON
 * columns, its type's fields and options and its values. One statement rather than a batch of five,
 * because building and running each statement was most of what the read cost. The workspace is
 * checked before anything read is shown: unknown, deleted and other organizations' records are the
 * same 404 as with `loadRecord`.
 */
export async function readRecord({ db, actor }: ServiceContext, recordId: string): Promise<RecordResponse> {
  const [row] = await recordRead(db).all({ recordId, userId: actor.actor.id });
  if (!row) throw new ApiError("not_found", "Record not found");
  reachFrom(actor, row.record.workspaceId, row, { what: "Record" });
  const fields = fieldsWithOptionsFromJson(row.fields, row.options);
  const [response] = responsesFrom(fields, [row.record], valuesFromJson(recordId, row.values));
  return response as RecordResponse;
}

/** The record read's statement, the record and the caller as placeholders. */
const recordRead = preparedOnce((db) =>
  db
    .select({
      record: records,
      workspace: workspaces,
      memberRole: workspaceMembers.role,
      inboxAccess: workspaceMembers.inboxAccess,
      fields: sql<string>`(select json_group_array(${rowJson(fieldDefinitions, "f")}) from ${fieldDefinitions} as "f" where "f"."object_type_id" = ${records.objectTypeId})`,
      options: sql<string>`(select json_group_array(${rowJson(fieldOptions, "o")}) from ${fieldOptions} as "o" where "o"."field_definition_id" in (select "id" from ${fieldDefinitions} where "object_type_id" = ${records.objectTypeId}))`,
      values: valuesJson(records.id),
    })
    .from(records)
    .innerJoin(workspaces, eq(workspaces.id, records.workspaceId))
    .leftJoin(workspaceMembers, memberJoin(sql.placeholder("userId")))
    .where(and(eq(records.id, sql.placeholder("recordId")), isNull(records.deletedAt)))
    .limit(1)
    .prepare(),
);

/** Changes the named fields of a record, conditionally (`changeWithoutLoss`). */
export async function updateRecordOf(context: ServiceContext, recordId: string, fields: Record<string, unknown>) {
  const { db, actor } = context;
  return changeWithoutLoss(context, {
    what: "Record",
    named: Object.keys(fields),
    read: async () => {
      const row = await loadRecord(context, recordId, "member");
      const [shown] = await recordResponses(db, await recordFields(db, row.objectTypeId), [row]);
      // The fields by key, and the version `If-Match` names.
      return { row, shown: { ...shown?.fields, updatedAt: row.updatedAt } };
    },
    shown: (read) => read.shown,
    write: ({ row }) => writeRecordChanges(db, actor, row, fields),
  });
}

export async function deleteRecordOf(context: ServiceContext, recordId: string): Promise<void> {
  const record = await loadRecord(context, recordId, "member");
  await softDeleteRecord(context, record);
}

/** `PUT /records?matchingField=`: updates the live record holding the unique value, or creates one. */
export async function assertRecordIn(
  context: ServiceContext,
  matchingField: string,
  { objectTypeId, fields: input }: BodyOf<typeof operations.assertRecord>,
): Promise<{ record: RecordResponse; created: boolean }> {
  const { db, actor } = context;
  const objectType = await loadObjectType(context, objectTypeId, "member");
  const fields = await recordFields(db, objectTypeId);
  const matching = uniqueMatchingField(fields, matchingField);
  const key = matchingKey(matching, input);
  const [match] = await db
    .select({ recordId: recordValues.recordId })
    .from(recordValues)
    .where(and(eq(recordValues.fieldDefinitionId, matching.id), eq(recordValues.identityKey, key)))
    .limit(1);
  if (match) return { record: await updateRecordOf(context, match.recordId, input), created: false };
  return { record: await insertRecord(db, actor, objectType, input), created: true };
}

/** A page of the records of a type, in the order and filter of one of its saved views when named. */
export async function listRecordsOf(context: ServiceContext, query: QueryOf<typeof operations.listRecords>) {
  const { objectTypeId, viewId, limit, cursor } = query;
  const fields = await objectTypeFields(context, objectTypeId);
  const view = viewId ? await loadView(context, viewId) : undefined;
  if (view && view.objectTypeId !== objectTypeId) {
    throw new ApiError("invalid_request", "The view belongs to another object type", [
      { path: "viewId", message: "Not a view of this object type" },
    ]);
  }
  const page = await queryRecordPage(
    context.db,
    {
      objectTypeId,
      fields,
      filter: view?.config.filter ?? null,
      sorts: view?.config.sorts ?? [],
      limit,
      ...(cursor ? { cursor } : {}),
    },
    context.cursorSecret,
    // A saved view that no longer fits (an option renamed under its filter) is named by the parameter that chose it.
    "viewId",
  );
  return { data: responsesFrom(fields, page.rows, page.values), pagination: page.pagination };
}

/** A page of the records of a type matching a filter, in the given sort order. */
export async function queryRecordsOf(context: ServiceContext, body: BodyOf<typeof operations.queryRecords>) {
  const { objectTypeId, filter, sorts, limit, cursor } = body;
  const fields = await objectTypeFields(context, objectTypeId);
  const page = await queryRecordPage(
    context.db,
    { objectTypeId, fields, filter: filter ?? null, sorts: sorts ?? [], limit, ...(cursor ? { cursor } : {}) },
    context.cursorSecret,
    // The query has filter and sorts at its top level.
    "",
  );
  return { data: responsesFrom(fields, page.rows, page.values), pagination: page.pagination };
}

/**
 * The fields of an object type the actor may read, with their options, in one statement: the type's
 * workspace with the actor's membership, the fields and the options as JSON columns (as `readRecord`
 * reads a record). Unknown types and other organizations' are the same 404 as `loadInWorkspace`'s.
 */
async function objectTypeFields({ db, actor }: ServiceContext, objectTypeId: string) {
  const [row] = await compiledRows<{
    workspace: string;
    member_role: WorkspaceRole | null;
    inbox_access: WorkspaceAccess["inboxAccess"] | null;
    fields: string;
    options: string;
  }>(db, objectTypeRead(), { objectTypeId, userId: actor.actor.id });
  const [workspace] = row ? rowsFromJson(workspaces, row.workspace) : [];
  if (!row || !workspace) throw new ApiError("not_found", "Object type not found");
  reachFrom(
    actor,
    workspace.id,
    { workspace, memberRole: row.member_role, inboxAccess: row.inbox_access },
    { what: "Object type" },
  );
  return fieldsWithOptionsFromJson(row.fields, row.options);
}

/** `objectTypeFields`' statement, compiled once: the requests of every tenant share its text. */
const objectTypeRead = compiledOnce(
  () => sql`select json_array(${rowJson(workspaces, "w")}) as workspace, "m"."role" as member_role, "m"."inbox_access" as inbox_access,
    (select json_group_array(${rowJson(fieldDefinitions, "f")}) from ${fieldDefinitions} as "f" where "f"."object_type_id" = "t"."id") as fields,
    (select json_group_array(${rowJson(fieldOptions, "o")}) from ${fieldOptions} as "o" where "o"."field_definition_id" in (select "id" from ${fieldDefinitions} where "object_type_id" = "t"."id")) as options
    from ${objectTypes} as "t" join ${workspaces} as "w" on "w"."id" = "t"."workspace_id"
    left join ${workspaceMembers} as "m" on "m"."workspace_id" = "w"."id" and "m"."user_id" = ${sql.placeholder("userId")}
    where "t"."id" = ${sql.placeholder("objectTypeId")}`,
);
