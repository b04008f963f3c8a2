import type { FieldType } from "@crm/contracts";
import { regional } from "@crm/db";
import { eq, inArray, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Database } from "../../env";
import type { RecordField, StoredValue } from "./values";

const { recordSearchTerms, recordValues } = regional;

/**
 * The writing side of record search (migration 0016): the rows of `record_search_terms` a record's
 * values make, replaced in the same batch as the values themselves, so that a search never finds
 * what a record no longer holds nor misses what it holds. Triggers carry each row into the FTS5 index.
 */

const searchableTypes = new Set<FieldType>(["text", "email", "phone", "url", "domain", "select", "multiselect"]);

/** The field whose matches rank first: every object type has a required `name`. */
const nameSlug = "name";

export const isSearchable = (field: Pick<RecordField, "type">) => searchableTypes.has(field.type);

/** A record's written values, as the index needs them. */
export interface IndexedRecord {
  recordId: string;
  objectTypeId: string;
  workspaceId: string;
  /** The planned values by field id: the fields written, each with all its rows. */
  planned: Map<string, StoredValue[]>;
}

/** The text a stored value is found by: a select's option label, the value itself otherwise. */
function searchText(field: RecordField, value: string): string {
  if (field.type !== "select" && field.type !== "multiselect") return value;
  return field.options.find((option) => option.value === value)?.label ?? value;
}

type TermRow = Omit<typeof recordSearchTerms.$inferInsert, "id">;

function termRows(fields: RecordField[], written: IndexedRecord) {
  const rows: TermRow[] = [];
  for (const field of fields) {
    if (!isSearchable(field)) continue;
    for (const value of written.planned.get(field.id) ?? []) {
      if (value.valueText === null) continue;
      const text = searchText(field, value.valueText);
      rows.push({
        recordId: written.recordId,
        fieldDefinitionId: field.id,
        objectTypeId: written.objectTypeId,
        workspaceId: written.workspaceId,
        name: field.slug === nameSlug ? text : "",
        body: field.slug === nameSlug ? "" : text,
      });
    }
  }
  return rows;
}

/**
 * Every row in one statement, as `insertRowsAsJson` writes (which cannot leave the rowid to SQLite):
 * a null `id` is given the next rowid.
 */
const insertTermRows = (db: Database, rows: TermRow[]) =>
  db
    .insert(recordSearchTerms)
    .select(
      sql`select null, value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5 from json_each(${JSON.stringify(
        rows.map((row) => [row.recordId, row.fieldDefinitionId, row.objectTypeId, row.workspaceId, row.name, row.body]),
      )})`,
    );

/**
 * Statements that make the index hold what the written fields of these records now hold: the old
 * rows of those fields dropped (for updates), the new ones added, however many records, in two
 * statements.
 */
export function searchIndexStatements(
  db: Database,
  fields: RecordField[],
  written: IndexedRecord[],
  replacing: boolean,
): BatchItem<"sqlite">[] {
  const searchable = new Set(fields.filter(isSearchable).map((field) => field.id));
  const statements: BatchItem<"sqlite">[] = [];
  if (replacing) {
    const pairs = written.flatMap((record) =>
      [...record.planned.keys()].filter((fieldId) => searchable.has(fieldId)).map((fieldId) => [record.recordId, fieldId]),
    );
    if (pairs.length > 0)
      statements.push(
        db
          .delete(recordSearchTerms)
          .where(
            sql`(${recordSearchTerms.recordId}, ${recordSearchTerms.fieldDefinitionId}) in (select value ->> 0, value ->> 1 from json_each(${JSON.stringify(pairs)}))`,
          ),
      );
  }
  const rows = written.flatMap((record) => termRows(fields, record));
  if (rows.length > 0) statements.push(insertTermRows(db, rows));
  return statements;
}

/** A deleted record is found no more. */
export const unindexRecord = (db: Database, recordId: string) =>
  db.delete(recordSearchTerms).where(eq(recordSearchTerms.recordId, recordId));

/** Deleted fields' values are found no more. */
export const unindexFields = (db: Database, fieldIds: string[]) =>
  db.delete(recordSearchTerms).where(inArray(recordSearchTerms.fieldDefinitionId, fieldIds));

/** A deleted object type's records are found no more. */
export const unindexObjectType = (db: Database, objectTypeId: string) =>
  db.delete(recordSearchTerms).where(eq(recordSearchTerms.objectTypeId, objectTypeId));

/** Records holding an option are found by its new label once it is renamed. */
export const relabelOption = (db: Database, fieldDefinitionId: string, value: string, from: string, to: string) =>
  db
    .update(recordSearchTerms)
    .set({ body: to })
    .where(
      sql`${recordSearchTerms.fieldDefinitionId} = ${fieldDefinitionId} and ${recordSearchTerms.body} = ${from} and ${recordSearchTerms.recordId} in (select ${recordValues.recordId} from ${recordValues} where ${recordValues.fieldDefinitionId} = ${fieldDefinitionId} and ${recordValues.valueText} = ${value})`,
    );
