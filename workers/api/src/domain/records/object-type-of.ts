import { regional } from "@crm/db";
import { eq } from "drizzle-orm";
import type { Database } from "../../database";

/**
 * The object type of the record a task or note hangs on, which their events name so that
 * webhook `objectTypeIds` filters apply to them. Soft-deleted records keep theirs; null once the
 * object type itself was deleted, records and all.
 */
export async function objectTypeOfRecord(db: Database, recordId: string): Promise<string | null> {
  const [record] = await db
    .select({ objectTypeId: regional.records.objectTypeId })
    .from(regional.records)
    .where(eq(regional.records.id, recordId))
    .limit(1);
  return record?.objectTypeId ?? null;
}
