import type { FieldType } from "@crm/contracts";
import { regional } from "@crm/db";
import { eq, inArray, type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Database } from "../../database";

const { records, recordValues, fieldDefinitions, fieldOptions, recordSearchTerms } = regional;

/**
 * The writing side of record search (migration 0016): a record's row in `record_search_terms`,
 * rebuilt from its stored values by one statement in the same batch as every write that changes
 * what it is found by (the record's own writes, a field's deletion, an option's new label), after
 * the statements that change the values. So a search never finds what a record no longer holds nor
 * misses what it holds. Triggers carry each row into the FTS5 index.
 */

export const searchableTypes: readonly FieldType[] = ["text", "email", "phone", "url", "domain", "select", "multiselect"];

/** The field whose matches rank first: every object type has a required `name`. */
export const nameSlug = "name";

/**
 * Drops and rebuilds the rows of the records `scope` selects (a condition on `records` as "r"):
 * the values of their searchable fields, options by their labels, the `name` field apart. A deleted
 * record gets no row back. Raw SQL for the aggregate select, which drizzle's builder cannot write;
 * the migration's backfill is the same statement.
 */
function reindexStatements(db: Database, scope: SQL, drop: SQL | null): BatchItem<"sqlite">[] {
  const valueText = sql`coalesce(o.label, v.value_text)`;
  const types = sql.join(
    searchableTypes.map((type) => sql`${type}`),
    sql`, `,
  );
  return [
    ...(drop ? [db.delete(recordSearchTerms).where(drop)] : []),
    // Columns in the table's order; a null id takes the next rowid.
    db.insert(recordSearchTerms).select(sql`select null, r.id, r.object_type_id, r.workspace_id,
        coalesce(group_concat(case when f.slug = ${nameSlug} then ${valueText} end, ' '), ''),
        coalesce(group_concat(case when f.slug <> ${nameSlug} then ${valueText} end, ' '), '')
      from ${records} r
      join ${recordValues} v on v.record_id = r.id and v.value_text is not null
      join ${fieldDefinitions} f on f.id = v.field_definition_id and f.type in (${types})
      left join ${fieldOptions} o on o.field_definition_id = f.id and o.value = v.value_text
      where r.deleted_at is null and ${scope}
      group by r.id`),
  ];
}

/**
 * After a write of these records (created, changed, deleted): their rows as their values now say.
 * Records just created have no row to drop, which spares a creation one statement.
 */
export function reindexRecords(db: Database, recordIds: string[], created = false): BatchItem<"sqlite">[] {
  if (recordIds.length === 0) return [];
  const ids = JSON.stringify(recordIds);
  return reindexStatements(
    db,
    sql`r.id in (select value from json_each(${ids}))`,
    created ? null : sql`${recordSearchTerms.recordId} in (select value from json_each(${ids}))`,
  );
}

/** After searchable fields of a type were deleted: every record of the type, without them. */
export const reindexObjectType = (db: Database, objectTypeId: string) =>
  reindexStatements(db, sql`r.object_type_id = ${objectTypeId}`, eq(recordSearchTerms.objectTypeId, objectTypeId));

/** After an option's label changed: the records holding it are found by the new label. */
export function reindexOptionHolders(db: Database, fieldDefinitionId: string, value: string) {
  const holders = sql`(select ${recordValues.recordId} from ${recordValues} where ${recordValues.fieldDefinitionId} = ${fieldDefinitionId} and ${recordValues.valueText} = ${value})`;
  return reindexStatements(db, sql`r.id in ${holders}`, inArray(recordSearchTerms.recordId, holders));
}

/** A deleted object type's records are found no more. */
export const unindexObjectType = (db: Database, objectTypeId: string) =>
  db.delete(recordSearchTerms).where(eq(recordSearchTerms.objectTypeId, objectTypeId));
