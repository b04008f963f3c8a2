import { ApiError, type operations } from "@crm/contracts";
import { regional } from "@crm/db";
import { and, eq, inArray, isNull, type SQL, sql } from "drizzle-orm";
import { requireWorkspace } from "../../access";
import type { ServiceContext } from "../../env";
import type { QueryOf } from "../../inputs";
import { paginate } from "../../pagination";
import { fieldAndOptionQueries, withOptions } from "../crm/resources";
import { type RecordResponse, responsesFrom, valuesFromJson, valuesJson } from "./store";

const { objectTypes, fieldDefinitions, records, recordSearch, recordSearchTerms } = regional;

/**
 * The reading side of record search: `record_search` (FTS5, migration 0016) answers which values
 * match, ranked by bm25 with a `name` match worth ten of one in another field; a record ranks by
 * its best matching value. Raw SQL for the match, since drizzle's query builder has no `MATCH`.
 */

const maxWords = 16;
const runsOf = (text: string) => text.match(/[\p{L}\p{N}]+/gu) ?? [];

/**
 * A user's words as an FTS5 query limited to one workspace. Each whitespace-separated term is a
 * phrase of its runs of letters and digits, the last one a prefix: `ann` finds Anna, `acme.ex` finds
 * `acme` followed by a word starting `ex`, as in anna@acme.example. Only those runs reach FTS5, each
 * inside double quotes, so nothing typed is read as query syntax. Null when no word is left.
 */
export function recordSearchExpression(workspaceId: string, q: string): string | null {
  const phrases: string[] = [];
  let words = 0;
  for (const term of q.split(/\s+/u)) {
    const kept = runsOf(term).slice(0, maxWords - words);
    if (kept.length === 0) continue;
    words += kept.length;
    phrases.push(`"${kept.join(" ")}"*`);
  }
  if (phrases.length === 0) return null;
  return `workspace_id : "${runsOf(workspaceId).join(" ")}" AND {name body} : (${phrases.join(" AND ")})`;
}

interface Hit {
  recordId: string;
  score: number;
  /** `[[fieldDefinitionId, score], …]` of the record's matching values. */
  matched: string;
}

export async function searchRecordsIn(context: ServiceContext, query: QueryOf<typeof operations.searchRecords>) {
  const { db, actor, cursorSecret } = context;
  const { workspaceId, q, objectTypeIds, limit, cursor } = query;
  const expression = recordSearchExpression(workspaceId, q);
  if (expression === null)
    throw new ApiError("invalid_request", "q must hold a letter or a digit", [
      { path: "query.q", message: "Nothing to search for" },
    ]);
  await requireWorkspace(db, actor, workspaceId);
  if (objectTypeIds) {
    const known = await db
      .select({ id: objectTypes.id })
      .from(objectTypes)
      .where(and(inArray(objectTypes.id, objectTypeIds), eq(objectTypes.workspaceId, workspaceId)));
    if (known.length !== objectTypeIds.length) throw new ApiError("not_found", "Object type not found");
  }
  const ofTypes = objectTypeIds
    ? sql`and ${recordSearchTerms.objectTypeId} in (select value from json_each(${JSON.stringify(objectTypeIds)}))`
    : sql``;
  const page = await paginate<Hit>(
    {
      scope: `records-search:${workspaceId}:${objectTypeIds?.join(",") ?? ""}:${q}`,
      limit,
      cursor,
      order: [
        { column: sql`score`, direction: "asc", valueIn: (hit) => hit.score },
        { column: sql`record_id`, direction: "asc", valueIn: (hit) => hit.recordId },
      ],
      fetch: ({ after, limit: fetchLimit }) =>
        db.all<Hit>(sql`select record_id as recordId, score, matched from (
            select ${recordSearchTerms.recordId} as record_id, min(m.score) as score,
              json_group_array(json_array(${recordSearchTerms.fieldDefinitionId}, m.score)) as matched
            from (select rowid, bm25(${recordSearch}, 0.0, 10.0, 1.0) as score from ${recordSearch} where ${recordSearch} match ${expression}) as m
            join ${recordSearchTerms} on ${recordSearchTerms.id} = m.rowid
            where ${recordSearchTerms.workspaceId} = ${workspaceId} ${ofTypes}
            group by ${recordSearchTerms.recordId}
          ) where ${after ?? sql`1`} order by score, record_id limit ${fetchLimit}`),
    },
    cursorSecret,
  );
  return { data: await hitsWithRecords(context, page.data), pagination: page.pagination };
}

/** The page's records with every field, and the slugs of the fields that matched, best first. */
async function hitsWithRecords({ db }: ServiceContext, hits: Hit[]) {
  if (hits.length === 0) return [];
  const ids = hits.map((hit) => hit.recordId);
  const rows = await db
    .select({ record: records, values: valuesJson(records.id) })
    .from(records)
    .where(and(inArray(records.id, ids), isNull(records.deletedAt)));
  const typeIds = [...new Set(rows.map((row) => row.record.objectTypeId))];
  const [fieldRows, optionRows] = await Promise.all(
    fieldAndOptionQueries(db, inArray(fieldDefinitions.objectTypeId, typeIds) as SQL),
  );
  const fields = withOptions(fieldRows, optionRows);
  const slugOf = new Map(fields.map((field) => [field.id, field.slug]));
  const byId = new Map(rows.map((row) => [row.record.id, row]));
  return hits.flatMap((hit) => {
    const row = byId.get(hit.recordId);
    if (!row) return [];
    const ofType = fields.filter((field) => field.objectTypeId === row.record.objectTypeId);
    const [record] = responsesFrom(ofType, [row.record], valuesFromJson(row.record.id, row.values)) as [RecordResponse];
    const matched = (JSON.parse(hit.matched) as [string, number][]).sort((a, b) => a[1] - b[1]);
    const matchedFields = [...new Set(matched.map(([fieldId]) => slugOf.get(fieldId) as string))];
    return [{ record, objectTypeId: row.record.objectTypeId, matchedFields }];
  });
}
