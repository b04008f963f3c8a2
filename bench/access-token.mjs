// An OAuth access token for the benchmark, as the token endpoint would issue it to the demo web
// app for alice in Acme: a grant row in the control D1 and an ES256 JWT with the claims of
// DESIGN.md section 3. The signing key is made here and registered as a key rotated out a moment
// ago, which the gateway publishes (and verifies with) for the lifetime of its tokens but never
// signs with, so the benchmark needs neither the gateway's IDENTITY_SECRET nor a browser consent.
import { randomUUID } from "node:crypto";
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT } from "jose";

export async function benchAccessToken(stack) {
  const db = await stack.mf.getD1Database("CONTROL_DB", "crm-gateway");
  const origin = new URL(stack.url).origin;
  const acme = stack.demo.organizations[0];
  const alice = acme.users[0];
  const app = stack.demo.oauthClients[0];
  const now = Date.now();

  const { publicKey, privateKey } = await generateKeyPair("ES256");
  const publicJwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(publicJwk);
  const grantId = `grt_bench${randomUUID().replaceAll("-", "").slice(0, 17)}`;
  await db.batch([
    db
      .prepare(
        "insert into oauth_signing_keys (kid, public_jwk, private_key_wrapped, created_at, retired_at) values (?, ?, 'not kept', ?, ?)",
      )
      .bind(kid, JSON.stringify({ ...publicJwk, kid, alg: "ES256", use: "sig" }), now, now),
    db
      .prepare(
        "insert into oauth_grants (id, client_id, user_id, organization_id, scopes, resource, created_at) values (?, ?, ?, ?, ?, ?, ?)",
      )
      .bind(grantId, app.clientId, alice.id, acme.id, JSON.stringify(["crm:records:read"]), `${origin}/api/v1`, now),
  ]);
  const iat = Math.floor(now / 1000);
  return new SignJWT({
    iss: origin,
    aud: `${origin}/api/v1`,
    sub: alice.id,
    org: acme.id,
    scope: "crm:records:read",
    client_id: app.clientId,
    act: "user",
    grant_id: grantId,
    iat,
    exp: iat + 3600,
    jti: randomUUID(),
  })
    .setProtectedHeader({ alg: "ES256", kid, typ: "at+jwt" })
    .sign(privateKey);
}
