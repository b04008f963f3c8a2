import { env } from "cloudflare:test";
import { control } from "@crm/db";
import { eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { describe, expect, it } from "vitest";
import { createOrganization } from "./fixtures";
import { call } from "./stack";

/**
 * `POST /internal/sso/store` (DESIGN.md section 12): the identity service's signed push of an
 * organization's SSO connection. The identity service is played here: it signs as the design says.
 */

const db = () => drizzle(env.CONTROL_DB);
const { ssoConnections, ssoDomains, ssoStoreNonces } = control;

const hex = (bytes: ArrayBuffer) => [...new Uint8Array(bytes)].map((byte) => byte.toString(16).padStart(2, "0")).join("");

/** Lowercase hex HMAC-SHA-256 of `timestamp.nonce.body`, as the identity service signs. */
async function sign(secret: string, timestamp: string, nonce: string, body: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  return hex(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${timestamp}.${nonce}.${body}`)));
}

interface PushOptions {
  secret?: string;
  timestamp?: number;
  nonce?: string;
  /** Replaces the signature made over the body. */
  signature?: string;
  contentType?: string;
  /** The client address the push comes from (`cf-connecting-ip`). */
  ip?: string;
}

const newNonce = () => crypto.randomUUID();

/** Signs `body` (a string as sent) and posts it. */
async function push(body: string, options: PushOptions = {}) {
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  const nonce = options.nonce ?? newNonce();
  const signature = options.signature ?? (await sign(options.secret ?? env.SSO_STORE_SECRET, timestamp, nonce, body));
  return call("/internal/sso/store", {
    method: "POST",
    headers: {
      "content-type": options.contentType ?? "application/json",
      "x-sso-timestamp": timestamp,
      "x-sso-nonce": nonce,
      "x-sso-signature": signature,
      ...(options.ip ? { "cf-connecting-ip": options.ip } : {}),
    },
    body,
  });
}

/** A domain of the organization's own (a domain belongs to one organization's connection). */
const domainOf = (organizationId: string) => `${organizationId.toLowerCase().replace(/[^a-z0-9]/g, "")}.example`;

const samlConnection = (organizationId: string) => ({
  organizationId,
  protocol: "saml",
  domains: [domainOf(organizationId), `Sales.${domainOf(organizationId).toUpperCase()}`],
  metadataUrl: "https://idp.acme.example/saml/metadata",
  enforced: true,
});

const storedConnection = async (organizationId: string) =>
  (await db().select().from(ssoConnections).where(eq(ssoConnections.organizationId, organizationId)))[0];

async function expectError(response: Response, status: number, code: string) {
  expect(response.status).toBe(status);
  const body = (await response.json()) as { error: { code: string; message: string; requestId: string; details?: unknown } };
  expect(body.error.code).toBe(code);
  expect(body.error.requestId).toBe(response.headers.get("x-request-id"));
  return body.error;
}

describe("POST /internal/sso/store", () => {
  it("stores the organization's connection, then replaces it on the next push", async () => {
    const { organizationId } = await createOrganization();
    const response = await push(JSON.stringify(samlConnection(organizationId)));
    expect(response.status).toBe(200);
    expect(((await response.json()) as { connection: unknown }).connection).toMatchObject({
      organizationId,
      protocol: "saml",
      domains: [domainOf(organizationId), `sales.${domainOf(organizationId)}`],
      metadataUrl: "https://idp.acme.example/saml/metadata",
      issuer: null,
      enforced: true,
    });
    expect(await storedConnection(organizationId)).toMatchObject({ protocol: "saml", enforced: true });

    const oidc = {
      organizationId,
      protocol: "oidc",
      domains: [domainOf(organizationId)],
      issuer: "https://login.acme.example",
      enforced: false,
    };
    expect((await push(JSON.stringify(oidc))).status).toBe(200);
    const rows = await db().select().from(ssoConnections).where(eq(ssoConnections.organizationId, organizationId));
    expect(rows).toEqual([
      expect.objectContaining({
        protocol: "oidc",
        domains: [domainOf(organizationId)],
        metadataUrl: null,
        issuer: oidc.issuer,
        enforced: false,
      }),
    ]);
  });

  it("gives each domain to one organization: a domain another holds is 409 and stores nothing, until it lets it go", async () => {
    const [first, second] = await Promise.all([createOrganization(), createOrganization()]);
    const shared = domainOf(first.organizationId);
    expect((await push(JSON.stringify(samlConnection(first.organizationId)))).status).toBe(200);
    const claiming = { ...samlConnection(second.organizationId), domains: [domainOf(second.organizationId), shared] };
    const error = await expectError(await push(JSON.stringify(claiming)), 409, "conflict");
    expect(error.details).toEqual([{ path: "body.domains", message: `${shared} is claimed by another organization` }]);
    expect(await storedConnection(second.organizationId)).toBeUndefined();
    // The holder pushing again keeps its domains; once it drops one, the other organization can take it.
    expect((await push(JSON.stringify(samlConnection(first.organizationId)))).status).toBe(200);
    const dropped = { ...samlConnection(first.organizationId), domains: [`sales.${shared}`] };
    expect((await push(JSON.stringify(dropped))).status).toBe(200);
    expect((await push(JSON.stringify(claiming))).status).toBe(200);
    expect((await storedConnection(second.organizationId))?.domains).toEqual(claiming.domains);
  });

  it("gives a domain claimed by two organizations at the same moment to one of them", async () => {
    const organizations = await Promise.all([createOrganization(), createOrganization(), createOrganization()]);
    const contested = `contested-${domainOf(organizations[0].organizationId)}`;
    const responses = await Promise.all(
      organizations.map(({ organizationId }) =>
        push(JSON.stringify({ ...samlConnection(organizationId), domains: [contested] })),
      ),
    );
    expect(responses.map((response) => response.status).sort()).toEqual([200, 409, 409]);
    const holders = await db().select().from(ssoDomains).where(eq(ssoDomains.domain, contested));
    expect(holders).toHaveLength(1);
    const stored = await Promise.all(organizations.map(({ organizationId }) => storedConnection(organizationId)));
    expect(stored.filter(Boolean).map((connection) => connection?.organizationId)).toEqual([holders[0]?.organizationId]);
  });

  it("refuses a wrong signature, another secret's, or a body changed after signing (401, nothing stored)", async () => {
    const { organizationId } = await createOrganization();
    const body = JSON.stringify(samlConnection(organizationId));
    const timestamp = Math.floor(Date.now() / 1000);
    const nonce = newNonce();
    const valid = await sign(env.SSO_STORE_SECRET, String(timestamp), nonce, body);
    const tampered = body.replace('"enforced":true', '"enforced":false');
    for (const attempt of [
      push(body, { secret: "not-the-sso-store-secret" }),
      push(body, { signature: "0".repeat(64) }),
      push(body, { signature: valid.toUpperCase() }),
      push(tampered, { timestamp, nonce, signature: valid }),
      push(body, { timestamp, nonce: newNonce(), signature: valid }),
    ])
      await expectError(await attempt, 401, "unauthorized");
    expect(await storedConnection(organizationId)).toBeUndefined();
  });

  it("counts refused pushes against the client's window of failed authentications: the 61st is 429, also when signed", async () => {
    const { organizationId } = await createOrganization();
    const body = JSON.stringify(samlConnection(organizationId));
    const ip = `192.0.2.${Math.floor(Math.random() * 250)}`;
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++) statuses.push((await push(body, { ip, secret: "a guess at the secret" })).status);
    expect(statuses.every((status) => status === 401)).toBe(true);
    await expectError(await push(body, { ip }), 429, "rate_limited");
    expect(await storedConnection(organizationId)).toBeUndefined();
    // Another client's signed push is not affected.
    expect((await push(body, { ip: "192.0.2.251" })).status).toBe(200);
  });

  it("refuses missing or malformed signing headers (401)", async () => {
    const { organizationId } = await createOrganization();
    const body = JSON.stringify(samlConnection(organizationId));
    const unsigned = await call("/internal/sso/store", { method: "POST", headers: { "content-type": "application/json" }, body });
    await expectError(unsigned, 401, "unauthorized");
    await expectError(await push(body, { nonce: "short" }), 401, "unauthorized");
    await expectError(await push(body, { nonce: "with spaces and more than sixteen" }), 401, "unauthorized");
    expect(await storedConnection(organizationId)).toBeUndefined();
  });

  it("refuses a timestamp more than five minutes old or ahead (401), and takes one within", async () => {
    const { organizationId } = await createOrganization();
    const body = JSON.stringify(samlConnection(organizationId));
    const now = Math.floor(Date.now() / 1000);
    await expectError(await push(body, { timestamp: now - 5 * 60 - 30 }), 401, "unauthorized");
    await expectError(await push(body, { timestamp: now + 5 * 60 + 30 }), 401, "unauthorized");
    expect(await storedConnection(organizationId)).toBeUndefined();
    expect((await push(body, { timestamp: now - 4 * 60 })).status).toBe(200);
  });

  it("accepts each nonce once: a replay, also re-signed over another body, is 401 and changes nothing", async () => {
    const { organizationId } = await createOrganization();
    const body = JSON.stringify(samlConnection(organizationId));
    const timestamp = Math.floor(Date.now() / 1000);
    const nonce = newNonce();
    expect((await push(body, { timestamp, nonce })).status).toBe(200);
    const first = await storedConnection(organizationId);
    await expectError(await push(body, { timestamp, nonce }), 401, "unauthorized");
    const other = JSON.stringify({ ...samlConnection(organizationId), enforced: false });
    await expectError(await push(other, { nonce }), 401, "unauthorized");
    expect(await storedConnection(organizationId)).toEqual(first);
  });

  it("takes exactly one of two identical pushes sent at the same time", async () => {
    const { organizationId } = await createOrganization();
    const body = JSON.stringify(samlConnection(organizationId));
    const timestamp = Math.floor(Date.now() / 1000);
    const nonce = newNonce();
    const signature = await sign(env.SSO_STORE_SECRET, String(timestamp), nonce, body);
    const responses = await Promise.all([
      push(body, { timestamp, nonce, signature }),
      push(body, { timestamp, nonce, signature }),
    ]);
    expect(responses.map((response) => response.status).sort()).toEqual([200, 401]);
    expect(await db().select().from(ssoStoreNonces).where(eq(ssoStoreNonces.nonce, nonce))).toHaveLength(1);
    expect(await db().select().from(ssoConnections).where(eq(ssoConnections.organizationId, organizationId))).toHaveLength(1);
  });

  it("refuses a malformed body with 400 and details, and lets the nonce be used for a corrected push", async () => {
    const { organizationId } = await createOrganization();
    const connection = samlConnection(organizationId);
    const nonce = newNonce();
    await expectError(await push("{not json", { nonce }), 400, "invalid_request");
    const cases: [unknown, string][] = [
      [{ ...connection, protocol: "ldap" }, "body.protocol"],
      [{ ...connection, metadataUrl: undefined }, "body.metadataUrl"],
      [{ ...connection, metadataUrl: "http://idp.acme.example/metadata" }, "body.metadataUrl"],
      [{ ...connection, domains: ["not a domain"] }, "body.domains.0"],
      [{ ...connection, domains: [] }, "body.domains"],
      [{ ...connection, domains: ["Co.UK"] }, "body.domains.0"],
      [{ ...connection, domains: [connection.domains[0], "gmail.com"] }, "body.domains.1"],
      [{ ...connection, enforced: "yes" }, "body.enforced"],
      [{ ...connection, issuer: "https://login.acme.example" }, "body.issuer"],
      [{ ...connection, organizationId: "org\ud800xyz" }, "body.organizationId"],
    ];
    for (const [body, path] of cases) {
      const error = await expectError(await push(JSON.stringify(body), { nonce }), 400, "invalid_request");
      expect(error.details, JSON.stringify(body)).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
    }
    // Domains no one organization owns are refused with the reason.
    const suffix = await expectError(
      await push(JSON.stringify({ ...connection, domains: ["co.uk"] }), { nonce }),
      400,
      "invalid_request",
    );
    expect(suffix.details).toEqual([{ path: "body.domains.0", message: expect.stringContaining("co.uk is a public suffix") }]);
    const freeMail = await expectError(
      await push(JSON.stringify({ ...connection, domains: ["gmail.com"] }), { nonce }),
      400,
      "invalid_request",
    );
    expect(freeMail.details).toEqual([
      { path: "body.domains.0", message: expect.stringContaining("gmail.com is a free-mail domain") },
    ]);
    await expectError(
      await push(JSON.stringify(connection), { nonce, contentType: "text/plain" }),
      415,
      "unsupported_media_type",
    );
    expect(await storedConnection(organizationId)).toBeUndefined();
    expect((await push(JSON.stringify(connection), { nonce })).status).toBe(200);
  });

  it("refuses a body over 64 KiB (413) and an unknown organization (404), storing nothing", async () => {
    const { organizationId } = await createOrganization();
    const oversized = JSON.stringify({ ...samlConnection(organizationId), padding: "x".repeat(64 * 1024) });
    await expectError(await push(oversized), 413, "payload_too_large");
    await expectError(await push(JSON.stringify(samlConnection("org_doesnotexist"))), 404, "not_found");
    expect(await storedConnection(organizationId)).toBeUndefined();
    expect(await storedConnection("org_doesnotexist")).toBeUndefined();
  });

  it("prunes nonces once their push's timestamp is well past the tolerance", async () => {
    const { organizationId } = await createOrganization();
    const stale = `stale-${newNonce()}`;
    const recent = `recent-${newNonce()}`;
    const now = Date.now();
    await db()
      .insert(ssoStoreNonces)
      .values([
        { nonce: stale, expiresAt: now - 60 * 60 * 1000 },
        { nonce: recent, expiresAt: now - 60 * 1000 },
      ]);
    expect((await push(JSON.stringify(samlConnection(organizationId)))).status).toBe(200);
    const left = (await db().select().from(ssoStoreNonces)).map((row) => row.nonce);
    expect(left).not.toContain(stale);
    expect(left).toContain(recent);
  });

  it("answers other methods with 405 and Allow, as every route", async () => {
    const response = await call("/internal/sso/store");
    await expectError(response, 405, "method_not_allowed");
    expect(response.headers.get("allow")).toBe("POST");
  });

  it("is not in the public OpenAPI document", async () => {
    const document = (await (await call("/openapi.json")).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths).filter((path) => path.startsWith("/internal"))).toEqual([]);
  });
});
