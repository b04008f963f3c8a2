import { env } from "cloudflare:test";
import { scopes } from "@crm/contracts";
import { control } from "@crm/db";
import { eq, inArray } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { describe, expect, it } from "vitest";
import { secretHash } from "../workers/gateway/src/identity/identity-secret";
import { passwordMatches } from "../workers/gateway/src/identity/passwords";
import { cast, demo, seed } from "./stack";

/** The identity part of the demo seed (DESIGN.md section 13): console passwords and OAuth clients. */

const db = () => drizzle(env.CONTROL_DB);

const storedHashes = async (userIds: string[]) =>
  new Map(
    (
      await db()
        .select({ id: control.users.id, passwordHash: control.users.passwordHash })
        .from(control.users)
        .where(inArray(control.users.id, userIds))
    ).map((row) => [row.id, row.passwordHash]),
  );

describe("the demo seed's identities", () => {
  it("gives every user a console password, stored as a PBKDF2 hash that verifies, and the same on a re-run", async () => {
    const { organizations } = await demo();
    const homeUsers = organizations.flatMap((organization) => organization.users.filter((user) => user.apiKey));
    expect(homeUsers.map((user) => user.email.split("@")[0]).sort()).toEqual(["alice", "bob", "carol", "dave", "erin"]);
    const hashes = await storedHashes(homeUsers.map((user) => user.id));
    for (const user of homeUsers) {
      const hash = hashes.get(user.id) ?? null;
      expect(hash, user.email).toMatch(/^pbkdf2-sha256\$100000\$/);
      expect(await passwordMatches(user.password as string, hash), user.email).toBe(true);
      expect(await passwordMatches(`${user.password}x`, hash), user.email).toBe(false);
    }
    // Another user's password does not open this account.
    const [alice, bob] = homeUsers;
    expect(await passwordMatches(bob?.password as string, hashes.get(alice?.id as string) ?? null)).toBe(false);

    const again = await seed();
    expect(again.organizations.flatMap((organization) => organization.users.map((user) => user.password))).toEqual(
      organizations.flatMap((organization) => organization.users.map((user) => user.password)),
    );
    expect(await storedHashes(homeUsers.map((user) => user.id))).toEqual(hashes);
  });

  it("gives a user seeded before passwords existed a password", async () => {
    const { carol } = await cast();
    await db().update(control.users).set({ passwordHash: null }).where(eq(control.users.id, carol.id));
    await seed();
    const hash = (await storedHashes([carol.id])).get(carol.id) ?? null;
    expect(await passwordMatches(carol.password, hash)).toBe(true);
  });

  it("has a confidential web app installed in Acme and a public client, secrets stored hashed", async () => {
    const { acme, webApp, publicClient } = await cast();
    const clients = await db()
      .select()
      .from(control.oauthClients)
      .where(inArray(control.oauthClients.id, [webApp.clientId, publicClient.clientId]));
    const confidential = clients.find((client) => client.id === webApp.clientId);
    const pkceOnly = clients.find((client) => client.id === publicClient.clientId);
    expect(confidential).toMatchObject({
      type: "confidential",
      secretHash: await secretHash(webApp.clientSecret),
      redirectUris: [webApp.redirectUri],
      grantTypes: expect.arrayContaining(["authorization_code", "refresh_token", "client_credentials"]),
    });
    expect(pkceOnly).toMatchObject({ type: "public", secretHash: null, redirectUris: [publicClient.redirectUri] });
    expect(pkceOnly?.grantTypes).not.toContain("client_credentials");
    expect(publicClient.clientSecret).toBeUndefined();

    const installations = await db()
      .select({ organizationId: control.oauthAppInstallations.organizationId, scopes: control.oauthAppInstallations.scopes })
      .from(control.oauthAppInstallations)
      .where(inArray(control.oauthAppInstallations.clientId, [webApp.clientId, publicClient.clientId]));
    expect(installations).toEqual([{ organizationId: acme.id, scopes: [...scopes] }]);
    expect(webApp.installedIn).toBe(acme.id);
  });
});
