import { env } from "cloudflare:test";
import { control } from "@crm/db";
import { eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from "jose";
import { describe, expect, it } from "vitest";
import { signAccessToken } from "./access-tokens";
import { activeSigningKey, jwksCacheMs, publishedSigningKeys, retiredKeyPublishedMs, rotateSigningKey } from "./signing-keys";

const db = () => drizzle(env.CONTROL_DB);
const secret = () => env.IDENTITY_SECRET;
const subject = {
  issuer: "https://crm.example",
  audience: "https://crm.example/api/v1",
  subject: "usr_test000001",
  organizationId: "org_test000001",
  scopes: ["crm:records:read", "tasks:read"],
  clientId: "cli_test000001",
  actor: "user" as const,
  grantId: "grt_test000001",
};

async function verify(token: string, now = Date.now()) {
  const jwks = createLocalJWKSet(await publishedSigningKeys(db(), now));
  return jwtVerify(token, jwks, {
    issuer: subject.issuer,
    audience: subject.audience,
    algorithms: ["ES256"],
    typ: "at+jwt",
    currentDate: new Date(now),
  });
}

describe("access-token signing", () => {
  it("signs ES256 JWTs with a kid, verifiable with the published JWKS, carrying the claims of DESIGN.md", async () => {
    const { accessToken, expiresIn } = await signAccessToken(db(), secret(), subject);
    const { payload, protectedHeader } = await verify(accessToken);
    expect(protectedHeader).toMatchObject({ alg: "ES256", typ: "at+jwt" });
    expect(protectedHeader.kid).toBeTruthy();
    expect(payload).toMatchObject({
      iss: subject.issuer,
      aud: subject.audience,
      sub: subject.subject,
      org: subject.organizationId,
      scope: "crm:records:read tasks:read",
      client_id: subject.clientId,
      act: "user",
      grant_id: subject.grantId,
    });
    expect(payload.jti).toMatch(/^[0-9a-f-]{36}$/);
    expect(expiresIn).toBe(3600);
    expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBe(3600);
  });

  it("leave org out of the token of a user who chose no organization", async () => {
    const { accessToken } = await signAccessToken(db(), secret(), { ...subject, organizationId: null });
    const { payload } = await verify(accessToken);
    expect(payload).not.toHaveProperty("org");
  });

  it("keep private keys encrypted at rest, and publish public halves only", async () => {
    const { kid } = await activeSigningKey(db(), secret());
    const [row] = await db().select().from(control.oauthSigningKeys).where(eq(control.oauthSigningKeys.kid, kid));
    expect(row?.privateKeyWrapped).toMatch(/^[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
    expect(row?.privateKeyWrapped).not.toContain('"d"');
    const { keys } = await publishedSigningKeys(db());
    expect(keys.find((key) => key.kid === kid)).toMatchObject({ kty: "EC", crv: "P-256", alg: "ES256", use: "sig" });
    for (const key of keys) expect(key).not.toHaveProperty("d");
  });

  it("rotate: the successor is published at once and signs only a JWKS cache lifetime later; the old kid stays published until its tokens have expired", async () => {
    const now = Date.now();
    const kidOf = (token: string) => decodeProtectedHeader(token).kid;
    const kids = async (at: number) => (await publishedSigningKeys(db(), at)).keys.map((key) => key.kid);
    const { accessToken: before } = await signAccessToken(db(), secret(), subject, now);
    const oldKid = kidOf(before);
    const newKid = await rotateSigningKey(db(), secret(), now);
    expect(newKid).not.toBe(oldKid);
    expect(await kids(now)).toEqual(expect.arrayContaining([oldKid, newKid]));
    // A verifier may hold a JWKS fetched just before the rotation for `jwksCacheMs`: the old key signs meanwhile.
    const { accessToken: during } = await signAccessToken(db(), secret(), subject, now + 1);
    expect(kidOf(during)).toBe(oldKid);
    const takeover = now + 1 + jwksCacheMs;
    const { accessToken: after } = await signAccessToken(db(), secret(), subject, takeover);
    expect(kidOf(after)).toBe(newKid);
    await verify(before, now + 59 * 60 * 1000);
    await verify(after, takeover);
    expect(await kids(takeover + retiredKeyPublishedMs - 1)).toContain(oldKid);
    expect(await kids(takeover + retiredKeyPublishedMs)).not.toContain(oldKid);
    expect(await kids(takeover + retiredKeyPublishedMs)).toContain(newKid);
  });

  it("replace a key that no longer decrypts (IDENTITY_SECRET changed) instead of failing", async () => {
    const now = Date.now();
    const { kid } = await activeSigningKey(db(), secret(), now);
    // Past the isolate's one-minute cache, so the key is read again, under another secret.
    const later = now + 2 * 60 * 1000;
    const replaced = await activeSigningKey(db(), "a-new-identity-secret", later);
    expect(replaced.kid).not.toBe(kid);
    const [old] = await db().select().from(control.oauthSigningKeys).where(eq(control.oauthSigningKeys.kid, kid));
    expect(old?.retiredAt).toBe(later);
    // Back to the test secret for the other tests: a fresh key under it.
    await rotateSigningKey(db(), secret(), later);
  });
});
