import { ApiError, type operations } from "@crm/contracts";
import { regional } from "@crm/db";
import { and, eq, inArray, isNull, type SQL, sql } from "drizzle-orm";
import { requireWorkspace } from "../../access";
import type { ServiceContext } from "../../env";
import type { QueryOf } from "../../inputs";
import { paginate } from "../../pagination";
import { fieldAndOptionQueries, withOptions } from "../crm/resources";
import { searchableTypes } from "./search-index";
import { type RecordResponse, responsesFrom, valuesFromJson, valuesJson } from "./store";

const { objectTypes, fieldDefinitions, records, recordSearch, recordSearchTerms } = regional;

/**
 * The reading side of record search: `record_search` (FTS5, migration 0016) answers which values
 * records match, ranked by bm25 with a `name` match worth ten of one in the record's other values.
 * Raw SQL for the match, since drizzle's query builder has no `MATCH`.
 */

const maxWords = 16;

/** Runs of letters and digits, case-folded and without diacritics: the words the FTS5 tokenizer (unicode61, remove_diacritics 2) makes of text. */
export const wordsOf = (text: string) =>
  text
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .match(/[\p{L}\p{N}]+/gu) ?? [];

/**
 * A user's words as phrases: each whitespace-separated term is a phrase of its runs of letters and
 * digits, the last one a prefix: `ann` finds Anna, `acme.ex` finds `acme` followed by a word
 * starting `ex`, as in anna@acme.example. At most 16 words.
 */
export function searchPhrases(q: string): string[][] {
  const phrases: string[][] = [];
  let words = 0;
  for (const term of q.split(/\s+/u)) {
    const kept = wordsOf(term).slice(0, maxWords - words);
    if (kept.length === 0) continue;
    words += kept.length;
    phrases.push(kept);
  }
  return phrases;
}

/**
 * The phrases as an FTS5 query limited to one workspace: every phrase must match, in the record's
 * name or in its other values. Only runs of letters and digits reach FTS5, each phrase inside
 * double quotes, so nothing typed is read as query syntax.
 */
export function recordSearchExpression(workspaceId: string, phrases: string[][]): string {
  const matches = phrases.map((phrase) => `"${phrase.join(" ")}"*`).join(" AND ");
  return `workspace_id : "${wordsOf(workspaceId).join(" ")}" AND {name body} : (${matches})`;
}

/** Whether a phrase occurs in a value's words: consecutive, the last one as a prefix. */
function occursIn(words: string[], phrase: string[]): boolean {
  for (let start = 0; start + phrase.length <= words.length; start++) {
    const fits = phrase.every((word, i) =>
      i === phrase.length - 1 ? (words[start + i] as string).startsWith(word) : words[start + i] === word,
    );
    if (fits) return true;
  }
  return false;
}

interface Hit {
  recordId: string;
  score: number;
}

export async function searchRecordsIn(context: ServiceContext, query: QueryOf<typeof operations.searchRecords>) {
  const { db, actor, cursorSecret } = context;
  const { workspaceId, q, objectTypeIds, limit, cursor } = query;
  const phrases = searchPhrases(q);
  if (phrases.length === 0)
    throw new ApiError("invalid_request", "q must hold a letter or a digit", [
      { path: "query.q", message: "Nothing to search for" },
    ]);
  const expression = recordSearchExpression(workspaceId, phrases);
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
        db.all<Hit>(sql`select record_id as recordId, score from (
            select ${recordSearchTerms.recordId} as record_id, bm25(${recordSearch}, 0.0, 10.0, 1.0) as score
            from ${recordSearch} join ${recordSearchTerms} on ${recordSearchTerms.id} = ${recordSearch}.rowid
            where ${recordSearch} match ${expression} ${ofTypes}
          ) where ${after ?? sql`1`} order by score, record_id limit ${fetchLimit}`),
    },
    cursorSecret,
  );
  return { data: await hitsWithRecords(context, page.data, phrases), pagination: page.pagination };
}

/** The page's records with every field, and the slugs of the fields that hold a phrase of the search. */
async function hitsWithRecords({ db }: ServiceContext, hits: Hit[], phrases: string[][]) {
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
  const byId = new Map(rows.map((row) => [row.record.id, row]));
  return hits.flatMap((hit) => {
    const row = byId.get(hit.recordId);
    if (!row) return [];
    const ofType = fields.filter((field) => field.objectTypeId === row.record.objectTypeId);
    const [record] = responsesFrom(ofType, [row.record], valuesFromJson(row.record.id, row.values)) as [RecordResponse];
    const matchedFields = ofType
      .filter((field) => searchableTypes.includes(field.type))
      .filter((field) => {
        const values = [record.fields[field.slug] ?? []].flat() as string[];
        const texts = values.map((value) => field.options.find((option) => option.value === value)?.label ?? value);
        return texts.some((text) => phrases.some((phrase) => occursIn(wordsOf(text), phrase)));
      })
      .map((field) => field.slug);
    return [{ record, objectTypeId: row.record.objectTypeId, matchedFields }];
  });
}
