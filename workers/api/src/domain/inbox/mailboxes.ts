import { regional } from "@crm/db";
import { and, eq } from "drizzle-orm";
import type { Database } from "../../database";

const { mailboxes } = regional;

/** One of the workspace's own mailboxes by address (any case), or undefined: the one lookup of a mailbox a request or a message names. */
export async function mailboxOf(
  db: Database,
  workspaceId: string,
  address: string,
): Promise<{ address: string; name: string } | undefined> {
  const [mailbox] = await db
    .select({ address: mailboxes.address, name: mailboxes.name })
    .from(mailboxes)
    .where(and(eq(mailboxes.workspaceId, workspaceId), eq(mailboxes.address, address.toLowerCase())))
    .limit(1);
  return mailbox;
}
