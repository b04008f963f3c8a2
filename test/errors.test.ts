import { env } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { type ActorContext, actorContextHeader, signActorContext } from "@crm/contracts";
import { control } from "@crm/db";
import { eq, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { describe, expect, it } from "vitest";
import { createKey, createOrganization } from "./fixtures";
import { baseUrl, call, cast } from "./stack";

const gateway = (exports as unknown as { default: Fetcher }).default;

/** The REST API's protected-resource metadata (RFC 9728), at the path derived from its resource `<origin>/api/v1`. */
const resourceMetadata = `${new URL(baseUrl).origin}/.well-known/oauth-protected-resource/api/v1`;

interface ErrorEnvelope {
  error: { code: string; message: string; requestId: string; details?: unknown };
}

/** Every failure has the envelope, and its requestId is the X-Request-Id header. */
async function expectError(response: Response, status: number, code: string): Promise<ErrorEnvelope["error"]> {
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  const body = (await response.json()) as ErrorEnvelope;
  expect(body.error.code).toBe(code);
  expect(body.error.message).toEqual(expect.any(String));
  expect(body.error.requestId).toMatch(/^req_[0-9a-z]{26}$/);
  expect(response.headers.get("x-request-id")).toBe(body.error.requestId);
  return body.error;
}

describe("the error envelope from every layer", () => {
  it("404 for an unknown path", async () => {
    await expectError(await call("/no-such-thing"), 404, "not_found");
    await expectError(await call("/workspaces/ws_123456/extra"), 404, "not_found");
  });

  it("401 for a dead credential on any path, known or not: the credential is checked before the route", async () => {
    const { acme, alice } = await cast();
    const dead = ["garbage", `crm_${"A".repeat(12)}_${"b".repeat(43)}`, acme.expiredKey, acme.revokedKey] as string[];
    const unrouted = [
      ["GET", "/no-such-thing"],
      ["POST", "/workspaces/ws_123456/extra"],
      ["DELETE", "/workspaces"],
      ["GET", "/records/batch"],
    ] as const;
    for (const [method, path] of unrouted) {
      for (const key of dead) {
        const response = await call(path, { method, key });
        expect(response.headers.get("www-authenticate"), `${method} ${path}`).toContain('error="invalid_token"');
        await expectError(response, 401, "invalid_token");
      }
    }
    // Without a credential, or with a live one, the path is answered as the router finds it.
    await expectError(await call("/no-such-thing"), 404, "not_found");
    await expectError(await call("/no-such-thing", { key: alice.apiKey }), 404, "not_found");
    await expectError(await call("/workspaces", { method: "DELETE", key: alice.apiKey }), 405, "method_not_allowed");
  });

  it("405 with Allow for a known path and another method", async () => {
    const { alice } = await cast();
    const response = await call("/workspaces", { method: "DELETE", key: alice.apiKey });
    expect(response.headers.get("allow")).toBe("GET");
    await expectError(response, 405, "method_not_allowed");
  });

  it("405 with the path's own Allow where a parameter of another route would match its literal segment", async () => {
    const { alice } = await cast();
    for (const [method, path, allow] of [
      ["GET", "/records/batch", "POST"],
      ["GET", "/records/query", "POST"],
      ["PUT", "/records/batch", "POST"],
      ["DELETE", "/records/search", "GET"],
    ] as const) {
      const response = await call(path, { method, key: alice.apiKey });
      expect(response.headers.get("allow"), `${method} ${path}`).toBe(allow);
      await expectError(response, 405, "method_not_allowed");
    }
  });

  it("404 for a known path with a trailing slash, whatever the method", async () => {
    const { alice } = await cast();
    for (const [method, path] of [
      ["GET", "/workspaces/"],
      ["POST", "/crm/objects/"],
      ["DELETE", "/workspaces/"],
    ] as const) {
      const response = await call(path, { method, key: alice.apiKey });
      expect(response.headers.get("allow")).toBeNull();
      await expectError(response, 404, "not_found");
    }
  });

  it("410 route_removed for the attachment download route", async () => {
    await expectError(await call("/record-email-attachment-download"), 410, "route_removed");
  });

  it("401 unauthorized with WWW-Authenticate when no token is sent", async () => {
    const response = await call("/workspaces");
    expect(response.headers.get("www-authenticate")).toBe(`Bearer realm="api", resource_metadata="${resourceMetadata}"`);
    await expectError(response, 401, "unauthorized");
    // RFC 9728 section 5.1: the challenge names where a client learns how to get a token for this API.
    const metadata = (await (await gateway.fetch(resourceMetadata)).json()) as { resource: string };
    expect(metadata.resource).toBe(baseUrl);
    const basic = await call("/workspaces", { headers: { authorization: "Basic YWxpY2U6c2VjcmV0" } });
    await expectError(basic, 401, "unauthorized");
  });

  it("401 invalid_token for malformed and unknown tokens", async () => {
    for (const authorization of ["Bearer", "Bearer  two-spaces", "Bearer garbage", "bearer crm_AAAAAAAAAAAA_short"]) {
      const response = await call("/workspaces", { headers: { authorization } });
      expect(response.headers.get("www-authenticate")).toBe(
        `Bearer realm="api", resource_metadata="${resourceMetadata}", error="invalid_token"`,
      );
      await expectError(response, 401, "invalid_token");
    }
  });

  it("accepts the Bearer keyword in any case", async () => {
    const { alice } = await cast();
    const response = await call("/workspaces", { headers: { authorization: `BEARER ${alice.apiKey}` } });
    expect(response.status).toBe(200);
  });

  it("400 invalid_request with a details list for bad parameters", async () => {
    const { alice } = await cast();
    for (const limit of ["0", "101", "abc", "1.5"]) {
      const error = await expectError(await call(`/workspaces?limit=${limit}`, { key: alice.apiKey }), 400, "invalid_request");
      expect(error.details).toEqual([{ path: "query.limit", message: expect.any(String) }]);
    }
  });

  it("400 organization_mismatch when X-Service-Organization-Id names another organization", async () => {
    const { alice, acme, globex } = await cast();
    const mismatch = await call("/workspaces", { key: alice.apiKey, headers: { "x-service-organization-id": globex.id } });
    await expectError(mismatch, 400, "organization_mismatch");
    const own = await call("/workspaces", { key: alice.apiKey, headers: { "x-service-organization-id": acme.id } });
    expect(own.status).toBe(200);
  });

  it("500 internal_error without internals when something breaks", async () => {
    const { organizationId, userId } = await createOrganization();
    const { key, id } = await createKey({ organizationId, ownerId: userId });
    // A corrupted row: the scopes column no longer holds JSON, so reading the key throws.
    // An SQL literal because drizzle would serialize a value as valid JSON.
    await drizzle(env.CONTROL_DB).update(control.apiKeys).set({ scopes: sql`'{not json'` }).where(eq(control.apiKeys.id, id));
    try {
      const response = await call("/workspaces", { key });
      const error = await expectError(response, 500, "internal_error");
      expect(error.message).toBe("Internal error");
      expect(JSON.stringify(error)).not.toMatch(/json|sql|stack|at /i);
    } finally {
      // The stack is shared with other files, which read every key.
      await drizzle(env.CONTROL_DB).delete(control.apiKeys).where(eq(control.apiKeys.id, id));
    }
  });

  it("every success carries X-Request-Id too", async () => {
    const { alice } = await cast();
    const response = await call("/workspaces", { key: alice.apiKey });
    expect(response.headers.get("x-request-id")).toMatch(/^req_/);
  });
});

describe("the regional Worker trusts only the gateway", () => {
  const secrets = { us: env.GATEWAY_CONTEXT_SECRET_US, eu: env.GATEWAY_CONTEXT_SECRET_EU };

  /** A request straight to a region's Worker, past the gateway, as a misrouted or replayed internal call would be. */
  const regional = (token: string | null, options: { region?: "us" | "eu"; method?: string; target?: string } = {}) => {
    const { region = "us", method = "GET", target = "/api/v1/workspaces" } = options;
    return { us: env.API_US, eu: env.API_EU }[region].fetch(`https://api.${region}.internal${target}`, {
      method,
      headers: token === null ? {} : { [actorContextHeader]: token },
    });
  };

  /** alice's context for `GET /workspaces` in the us region, as the gateway signs it, with `overrides`. */
  async function context(overrides: Partial<ActorContext> = {}): Promise<ActorContext> {
    const { acme, alice } = await cast();
    return {
      requestId: "req_test",
      organizationId: acme.id,
      region: "us",
      shard: acme.shard,
      actor: { type: "user", id: alice.id },
      credential: { type: "api_key", id: "key_test" },
      scopes: [],
      workspaceIds: null,
      organizationRole: "owner",
      operationId: "listWorkspaces",
      method: "GET",
      path: "/workspaces",
      target: "/api/v1/workspaces",
      surface: "api",
      issuedAt: Date.now(),
      ...overrides,
    };
  }

  it("serves a context signed with the region's own secret for this very request", async () => {
    expect((await regional(await signActorContext(await context(), secrets.us))).status).toBe(200);
    const { globex, dave } = await cast();
    const eu = await context({ region: "eu", organizationId: globex.id, actor: { type: "user", id: dave.id } });
    expect((await regional(await signActorContext(eu, secrets.eu), { region: "eu" })).status).toBe(200);
  });

  it("refuses a missing, forged, stale or re-targeted context", async () => {
    const forged = await signActorContext(await context(), "not-the-gateway-secret");
    const stale = await signActorContext(await context({ issuedAt: Date.now() - 5 * 60_000 }), secrets.us);
    const otherRoute = await signActorContext(await context({ operationId: "createObjectType" }), secrets.us);
    const unsigned = btoa(JSON.stringify(await context()));
    await expectError(await regional(null), 401, "unauthorized");
    for (const token of [forged, stale, otherRoute, unsigned]) {
      await expectError(await regional(token), 401, "unauthorized");
    }
  });

  it("refuses a context signed for another region, or with another region's secret", async () => {
    // Named for us, signed with eu's secret and sent to eu: only the region it names gives it away.
    await expectError(await regional(await signActorContext(await context(), secrets.eu), { region: "eu" }), 401, "unauthorized");
    // Named for us and sent to us, but signed with eu's secret.
    await expectError(await regional(await signActorContext(await context(), secrets.eu)), 401, "unauthorized");
  });

  it("refuses a context signed for another method, path template or request", async () => {
    const signed = async (overrides: Partial<ActorContext>) => signActorContext(await context(overrides), secrets.us);
    // Signed for a POST, replayed as the GET of the same path.
    await expectError(await regional(await signed({ method: "POST" })), 401, "unauthorized");
    // Same operation id, another route.
    await expectError(await regional(await signed({ path: "/workspaces/{workspaceId}" })), 401, "unauthorized");
    // Signed for one request of the route, replayed for another.
    const firstPage = await signed({ target: "/api/v1/workspaces?limit=1" });
    expect((await regional(firstPage, { target: "/api/v1/workspaces?limit=1" })).status).toBe(200);
    await expectError(await regional(firstPage, { target: "/api/v1/workspaces?limit=2" }), 401, "unauthorized");
  });
});
