import { scopes } from "@crm/contracts";
import { control } from "@crm/db";
import { and, inArray, isNotNull } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { DrizzleD1Database } from "drizzle-orm/d1";
import { secretHash } from "../identity/identity-secret";
import { demoClientSecret, demoId, demoOAuthClients } from "./demo";

/** Fixed like the rest of the seed, so re-runs write the same rows. */
const seededAt = Date.UTC(2026, 0, 5);

/** Which of these users already have a console password: a re-run does not pay PBKDF2 for them again. */
export async function usersWithPasswords(db: DrizzleD1Database, userIds: string[]): Promise<Set<string>> {
  const rows = await db
    .select({ id: control.users.id })
    .from(control.users)
    .where(and(inArray(control.users.id, userIds), isNotNull(control.users.passwordHash)));
  return new Set(rows.map((row) => row.id));
}

/** What `.dev/demo.json` says of a demo OAuth client; the secret only for a confidential one. */
export interface SeededOAuthClient {
  clientId: string;
  clientSecret?: string;
  name: string;
  redirectUri: string;
  /** The organization whose data its client-credentials tokens reach. */
  installedIn?: string;
}

/**
 * The demo OAuth clients (DESIGN.md section 13) and the installation of the confidential one with
 * every scope, as rows that are left alone when they exist. Client secrets are stored as their
 * SHA-256 only, as the token endpoint compares them.
 */
export async function demoOAuthClientRows(
  db: DrizzleD1Database,
  secret: string,
  organizationIds: ReadonlyMap<string, string>,
): Promise<{ statements: BatchItem<"sqlite">[]; clients: SeededOAuthClient[] }> {
  const statements: BatchItem<"sqlite">[] = [];
  const clients: SeededOAuthClient[] = [];
  for (const client of demoOAuthClients) {
    const clientId = await demoId(secret, "cli", client.label);
    const clientSecret = client.type === "confidential" ? await demoClientSecret(secret, client.label) : undefined;
    statements.push(
      db
        .insert(control.oauthClients)
        .values({
          id: clientId,
          name: client.name,
          type: client.type,
          secretHash: clientSecret === undefined ? null : await secretHash(clientSecret),
          redirectUris: [client.redirectUri],
          grantTypes: client.grantTypes,
          registeredVia: "manual",
          createdAt: seededAt,
        })
        .onConflictDoNothing(),
    );
    const organizationId = client.installedIn ? organizationIds.get(client.installedIn) : undefined;
    if (organizationId) {
      statements.push(
        db
          .insert(control.oauthAppInstallations)
          .values({ clientId, organizationId, scopes: [...scopes], createdAt: seededAt })
          .onConflictDoNothing(),
      );
    }
    clients.push({
      clientId,
      ...(clientSecret === undefined ? {} : { clientSecret }),
      name: client.name,
      redirectUri: client.redirectUri,
      ...(organizationId ? { installedIn: organizationId } : {}),
    });
  }
  return { statements, clients };
}
