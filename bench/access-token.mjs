// An OAuth access token for the benchmark, from the real endpoints: alice, signed in to the console
// (a session row, as sign-in writes it), lets the demo's public client in through the consent page,
// and the client exchanges the code with its PKCE verifier. The token then speaks for the same user
// and organization as alice's API key, so the two runs differ only in the credential.
import { createHash, randomBytes } from "node:crypto";

const base64Url = (bytes) => Buffer.from(bytes).toString("base64url");
const sha256 = (text) => createHash("sha256").update(text);

async function signIn(stack, user, organizationId) {
  const db = await stack.mf.getD1Database("CONTROL_DB", "crm-gateway");
  const token = base64Url(randomBytes(32));
  const now = Date.now();
  await db
    .prepare(
      "insert into console_sessions (id, token_hash, user_id, organization_id, created_at, last_seen_at, expires_at) values (?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(
      `ses_bench${base64Url(randomBytes(12))}`,
      sha256(token).digest("hex"),
      user.id,
      organizationId,
      now,
      now,
      now + 3600_000,
    )
    .run();
  return `__Host-session=${token}`;
}

export async function benchAccessToken(stack) {
  const acme = stack.demo.organizations[0];
  const alice = acme.users[0];
  const client = stack.demo.oauthClients.find((candidate) => !candidate.clientSecret);
  const cookie = await signIn(stack, alice, acme.id);
  const verifier = base64Url(randomBytes(32));
  const authorize = new URL("/oauth/authorize", stack.url);
  for (const [name, value] of Object.entries({
    response_type: "code",
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    scope: "crm:records:read",
    state: base64Url(randomBytes(16)),
    code_challenge: sha256(verifier).digest("base64url"),
    code_challenge_method: "S256",
  }))
    authorize.searchParams.set(name, value);
  const page = await (await fetch(authorize, { headers: { cookie } })).text();
  const field = (name) => new RegExp(`name="${name}" value="([^"]*)"`).exec(page)?.[1];
  const consent = await fetch(new URL("/oauth/authorize", stack.url), {
    method: "POST",
    redirect: "manual",
    headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      reference: field("reference"),
      csrf_token: field("csrf_token"),
      organization: field("organization"),
      decision: "allow",
    }),
  });
  const code = new URL(consent.headers.get("location") ?? "", stack.url).searchParams.get("code");
  if (!code) throw new Error(`consent answered ${consent.status}: ${await consent.text()}`);
  const response = await fetch(new URL("/oauth/token", stack.url), {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code,
      redirect_uri: client.redirectUri,
      code_verifier: verifier,
      client_id: client.clientId,
    }),
  });
  if (!response.ok) throw new Error(`the token endpoint answered ${response.status}: ${await response.text()}`);
  return (await response.json()).access_token;
}
