import { ApiError, type operations } from "@crm/contracts";
import { regional } from "@crm/db";
import { and, eq, exists, isNull, sql } from "drizzle-orm";
import { requireWorkspace } from "../../access";
import type { Database } from "../../database";
import type { ServiceContext } from "../../env";
import type { QueryOf } from "../../inputs";
import { paginate } from "../../pagination";
import { fieldAndOptionQueries, withOptions } from "../crm/resources";
import { searchableTypes } from "./search-index";
import { type RecordResponse, responsesFrom, valuesFromJson, valuesJson } from "./store";

const { objectTypes, fieldDefinitions, records, recordSearch, recordSearchTerms, workspaces } = regional;

/**
 * The reading side of record search: `record_search` (FTS5, migration 0016) answers which values
 * records match, ranked by how many of the search's words its `name` holds (`nameMisses`), then by id.
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
 * The phrases as an FTS5 query: every phrase must match, in the record's name or in its other
 * values. Only runs of letters and digits reach FTS5, each phrase inside double quotes, so nothing
 * typed is read as query syntax.
 */
export const recordSearchExpression = (phrases: string[][]): string =>
  phrases.map((phrase) => `"${phrase.join(" ")}"*`).join(" AND ");

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

type FieldWithOptions = ReturnType<typeof withOptions>[number];
interface Hit {
  record: typeof records.$inferSelect;
  score: number;
  values: string;
}

/** What a search may match: the workspace, only while it belongs to the organization; optionally some of its object types. */
export interface SearchBounds {
  organizationId: string;
  workspaceId: string;
  objectTypeIds?: string[] | undefined;
}

/**
 * The FTS5 match of the phrases within the bounds, each match with its rank (`nameMisses`), as a
 * subquery (the page's order and position apply outside).
 * The organization's hold on the workspace is a condition on no row of the match, so SQLite tests it
 * once before it opens the FTS5 index: a workspace of another organization matches nothing and reads
 * none of its doclists, whether or not the caller checked access first.
 */
export function recordMatches(db: Database, { organizationId, workspaceId, objectTypeIds }: SearchBounds, phrases: string[][]) {
  const ofOrganization = db
    .select({ id: workspaces.id })
    .from(workspaces)
    .where(and(eq(workspaces.id, workspaceId), eq(workspaces.organizationId, organizationId)));
  return db
    .select({ recordId: recordSearchTerms.recordId, score: sql<number>`${nameMisses(phrases)}`.as("score") })
    .from(recordSearch)
    .innerJoin(recordSearchTerms, sql`${recordSearchTerms.id} = ${recordSearch}.rowid`)
    .where(
      and(
        exists(ofOrganization),
        sql`${recordSearch} match ${recordSearchExpression(phrases)}`,
        // The workspace is checked on each match's row: see migration 0016 for why not in the match.
        eq(recordSearchTerms.workspaceId, workspaceId),
        objectTypeIds
          ? sql`${recordSearchTerms.objectTypeId} in (select value from json_each(${JSON.stringify(objectTypeIds)}))`
          : undefined,
      ),
    )
    .as("matches");
}

/**
 * The actor's access to the workspace first, so that a search of a workspace it cannot reach never
 * runs the match (its time would tell how many records match there); then one round trip: the page
 * of matching records with their values, and the fields and options of the workspace's object types.
 */
export async function searchRecordsIn(context: ServiceContext, query: QueryOf<typeof operations.searchRecords>) {
  const { db, actor, cursorSecret } = context;
  const { workspaceId, q, objectTypeIds, limit, cursor } = query;
  const phrases = searchPhrases(q);
  if (phrases.length === 0)
    throw new ApiError("invalid_request", "q must hold a letter or a digit", [{ path: "q", message: "Nothing to search for" }]);
  await requireWorkspace(db, actor, workspaceId);
  const matches = recordMatches(db, { organizationId: actor.organizationId, workspaceId, objectTypeIds }, phrases);
  const ofWorkspace = sql`${fieldDefinitions.objectTypeId} in (select ${objectTypes.id} from ${objectTypes} where ${objectTypes.workspaceId} = ${workspaceId})`;
  let fields: FieldWithOptions[] = [];
  const page = await paginate<Hit>(
    {
      scope: `records-search:${workspaceId}:${objectTypeIds?.join(",") ?? ""}:${q}`,
      limit,
      cursor,
      order: [
        { column: matches.score, direction: "asc", valueIn: (hit) => hit.score },
        { column: records.id, direction: "asc", valueIn: (hit) => hit.record.id },
      ],
      fetch: async ({ after, orderBy, limit: fetchLimit }) => {
        const [hits, fieldRows, optionRows] = await db.batch([
          db
            .select({ record: records, score: matches.score, values: valuesJson(records.id) })
            .from(matches)
            .innerJoin(records, eq(records.id, matches.recordId))
            .where(and(isNull(records.deletedAt), after))
            .orderBy(...orderBy)
            .limit(fetchLimit),
          ...fieldAndOptionQueries(db, ofWorkspace),
        ]);
        fields = withOptions(fieldRows, optionRows);
        const known = new Set(fields.map((field) => field.objectTypeId));
        if (objectTypeIds?.some((id) => !known.has(id))) throw new ApiError("not_found", "Object type not found");
        return hits;
      },
    },
    cursorSecret,
  );
  return { data: page.data.map((hit) => searchHit(fields, hit, phrases)), pagination: page.pagination };
}

/**
 * How many of the phrases a record's `name` lacks (found in its other values instead): the rank of
 * a hit, 0 best. It depends on the record's own row only: bm25, which ranked before, weighs terms by
 * how often the whole table holds them, so every write of any workspace on the shard moved hits
 * between two pages of a walk (a hit came twice or never, issue 38). Each test is a match at the
 * hit's own rowid, which FTS5 seeks to in the term's doclist, never a read of the shard's matches.
 */
function nameMisses(phrases: string[][]) {
  const misses = phrases.map(
    (phrase) =>
      sql`(not exists (select 1 from ${recordSearch} where rowid = ${recordSearchTerms.id} and ${recordSearch} match ${`name : ${recordSearchExpression([phrase])}`}))`,
  );
  return sql.join(misses, sql` + `);
}

/** A hit as the response shows it: the record with every field, and the slugs of the fields holding a phrase of the search. */
function searchHit(fields: FieldWithOptions[], hit: Hit, phrases: string[][]) {
  const ofType = fields.filter((field) => field.objectTypeId === hit.record.objectTypeId);
  const [record] = responsesFrom(ofType, [hit.record], valuesFromJson(hit.record.id, hit.values)) as [RecordResponse];
  const matchedFields = ofType
    .filter((field) => searchableTypes.includes(field.type))
    .filter((field) => {
      const values = [record.fields[field.slug] ?? []].flat() as string[];
      const texts = values.map((value) => field.options.find((option) => option.value === value)?.label ?? value);
      return texts.some((text) => phrases.some((phrase) => occursIn(wordsOf(text), phrase)));
    })
    .map((field) => field.slug);
  return { record, objectTypeId: hit.record.objectTypeId, matchedFields };
}
