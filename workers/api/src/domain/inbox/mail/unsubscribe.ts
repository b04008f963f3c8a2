import { regional } from "@crm/db";
import type { Database } from "../../../database";

/** Records that an address used an unsubscribe link of the organization; a repeat changes nothing. */
export async function unsubscribeAddress(db: Database, link: { organizationId: string; address: string }): Promise<void> {
  await db
    .insert(regional.unsubscribedAddresses)
    .values({ organizationId: link.organizationId, address: link.address.toLowerCase(), createdAt: Date.now() })
    .onConflictDoNothing();
}
