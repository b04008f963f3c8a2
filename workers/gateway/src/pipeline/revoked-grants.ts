import { control } from "@crm/db";
import { gt } from "drizzle-orm";
import type { DrizzleD1Database } from "drizzle-orm/d1";
import { accessTokenLifetimeSeconds } from "../identity/signing-keys";

const { oauthGrants } = control;

/**
 * How a revoked grant stops its access tokens before they expire (DESIGN.md section 3): each isolate
 * keeps the ids of grants revoked lately and reads them again at most every `refreshMs`, one read
 * per isolate whatever the traffic, so a revocation is seen everywhere within that time (≤ 60 s).
 * Only grants revoked within a token's lifetime (plus the verifier's leeway) are kept: the tokens of
 * older ones have expired anyway.
 */
export const revokedGrantsRefreshMs = 30_000;
const rememberedMs = accessTokenLifetimeSeconds * 1000 + revokedGrantsRefreshMs + 60_000;

let revoked: { ids: Promise<ReadonlySet<string>>; loadedAt: number } | undefined;

async function loadRevokedGrants(db: DrizzleD1Database, now: number): Promise<ReadonlySet<string>> {
  const rows = await db
    .select({ id: oauthGrants.id })
    .from(oauthGrants)
    .where(gt(oauthGrants.revokedAt, now - rememberedMs));
  return new Set(rows.map((row) => row.id));
}

/** Whether reading the grant list is due: never read, older than `refreshMs`, or read "in the future" (a clock set back). */
export const revokedGrantsDue = (now = Date.now()): boolean =>
  revoked === undefined || now - revoked.loadedAt >= revokedGrantsRefreshMs || now < revoked.loadedAt;

/** Whether a grant has been revoked, as this isolate last read it. */
export async function grantRevoked(db: DrizzleD1Database, grantId: string, now = Date.now()): Promise<boolean> {
  if (revoked === undefined || revokedGrantsDue(now)) {
    const ids = loadRevokedGrants(db, now);
    const entry = { ids, loadedAt: now };
    revoked = entry;
    ids.catch(() => {
      if (revoked === entry) revoked = undefined;
    });
  }
  return (await revoked.ids).has(grantId);
}
