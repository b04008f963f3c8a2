import { regional } from "@crm/db";
import { count, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { requestHash } from "../workers/api/src/idempotency";
import { errorOf } from "./crm";
import { createKey, regionDb } from "./fixtures";
import { baseUrl, call, cast } from "./stack";

/**
 * Idempotency-Key (DESIGN.md section 5) on a real write route: POST /crm/objects creates a custom
 * object type, so a replay that ran the handler twice would show as a second row.
 */

const unique = () => crypto.randomUUID().slice(0, 8);

async function objectTypesNamed(namePlural: string): Promise<number> {
  const [row] = await regionDb("us")
    .select({ n: count() })
    .from(regional.objectTypes)
    .where(eq(regional.objectTypes.namePlural, namePlural));
  return row?.n ?? 0;
}

/**
 * Claims an Idempotency-Key for `POST /crm/objects` with `body` as the middleware does when a
 * request starts, as if that request were still running (or had died, when `lockedUntil` is past).
 */
async function claimInFlight(
  claim: { organizationId: string; credentialId: string; key: string; body: unknown },
  lockedUntil: number,
) {
  const hash = await requestHash("POST", new URL(`${baseUrl}/crm/objects`), JSON.stringify(claim.body));
  await regionDb("us")
    .insert(regional.idempotencyKeys)
    .values({
      organizationId: claim.organizationId,
      credentialId: claim.credentialId,
      key: claim.key,
      requestHash: hash,
      state: "in_flight",
      lockedUntil,
      expiresAt: Date.now() + 24 * 3600_000,
    });
}

function createObjectType(key: string, body: Record<string, unknown>, idempotencyKey?: string) {
  return call("/crm/objects", {
    method: "POST",
    key,
    json: body,
    ...(idempotencyKey === undefined ? {} : { headers: { "idempotency-key": idempotencyKey } }),
  });
}

describe("Idempotency-Key", () => {
  it("replays the first response with Idempotent-Replayed and runs nothing twice", async () => {
    const { alice, sales } = await cast();
    const namePlural = `Vendors ${unique()}`;
    const body = { workspaceId: sales.id, nameSingular: "Vendor", namePlural };
    const key = `create-${unique()}`;
    const first = await createObjectType(alice.apiKey, body, key);
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const firstBody = await first.json();

    // Same request, keys in another order, the key quoted: still the same request.
    const replay = await createObjectType(
      alice.apiKey,
      { namePlural, nameSingular: "Vendor", workspaceId: sales.id },
      `"${key}"`,
    );
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(await replay.json()).toEqual(firstBody);
    expect(await objectTypesNamed(namePlural)).toBe(1);
  });

  it("refuses the same key for a different request with 422", async () => {
    const { alice, sales } = await cast();
    const key = `reuse-${unique()}`;
    expect(
      (await createObjectType(alice.apiKey, { workspaceId: sales.id, nameSingular: "A", namePlural: `As ${unique()}` }, key))
        .status,
    ).toBe(201);
    const reused = await createObjectType(
      alice.apiKey,
      { workspaceId: sales.id, nameSingular: "B", namePlural: `Bs ${unique()}` },
      key,
    );
    expect(reused.status).toBe(422);
    expect((await errorOf(reused)).code).toBe("idempotency_key_reused");
  });

  it("answers 409 while the first request with the key is still in flight", async () => {
    const { acme, alice, sales } = await cast();
    const { key: apiKey, id: credentialId } = await createKey({ organizationId: acme.id, ownerId: alice.id });
    const key = `inflight-${unique()}`;
    const body = { workspaceId: sales.id, nameSingular: "Partner", namePlural: `Partners ${unique()}` };
    await claimInFlight({ organizationId: acme.id, credentialId, key, body }, Date.now() + 60_000);
    const response = await createObjectType(apiKey, body, key);
    expect(response.status).toBe(409);
    expect((await errorOf(response)).code).toBe("idempotency_key_in_use");
    expect(await objectTypesNamed(body.namePlural)).toBe(0);
  });

  it("takes over the abandoned claim of the same request, and no other's", async () => {
    const { acme, alice, sales } = await cast();
    const { key: apiKey, id: credentialId } = await createKey({ organizationId: acme.id, ownerId: alice.id });
    const key = `stale-${unique()}`;
    const body = { workspaceId: sales.id, nameSingular: "Partner", namePlural: `Partners ${unique()}` };
    await claimInFlight({ organizationId: acme.id, credentialId, key, body }, Date.now() - 1);
    const other = { ...body, namePlural: `Partners ${unique()}` };
    const reused = await createObjectType(apiKey, other, key);
    expect(reused.status).toBe(422);
    expect((await errorOf(reused)).code).toBe("idempotency_key_reused");

    const response = await createObjectType(apiKey, body, key);
    expect(response.status).toBe(201);
    expect(await objectTypesNamed(body.namePlural)).toBe(1);
    const replay = await createObjectType(apiKey, body, key);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(await objectTypesNamed(body.namePlural)).toBe(1);
  });

  it("keeps keys apart per credential", async () => {
    const { alice, acme, sales } = await cast();
    const key = `shared-${unique()}`;
    const body = { workspaceId: sales.id, nameSingular: "Site", namePlural: `Sites ${unique()}` };
    expect((await createObjectType(alice.apiKey, body, key)).status).toBe(201);
    const other = await createObjectType(acme.agentApiKey as string, body, key);
    expect(other.headers.get("idempotent-replayed")).toBeNull();
    expect(other.status).toBe(409); // a second type with the same slug: the agent's request really ran
  });

  it("rejects keys that are empty or longer than 200 characters", async () => {
    const { alice, sales } = await cast();
    for (const key of ["", "x".repeat(201), '""']) {
      const response = await createObjectType(
        alice.apiKey,
        { workspaceId: sales.id, nameSingular: "X", namePlural: `Xs ${unique()}` },
        key,
      );
      expect(response.status, JSON.stringify(key)).toBe(400);
      expect((await errorOf(response)).code).toBe("invalid_idempotency_key");
    }
  });

  it("replays a 4xx result too: only 5xx and 429 results are not kept", async () => {
    const { alice, sales } = await cast();
    const key = `invalid-${unique()}`;
    const bad = { workspaceId: sales.id, nameSingular: "" };
    expect((await createObjectType(alice.apiKey, bad, key)).status).toBe(400);
    const again = await createObjectType(alice.apiKey, bad, key);
    expect(again.status).toBe(400);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
  });

  it("expires keys after 24 hours", async () => {
    const { alice, sales } = await cast();
    const key = `expiring-${unique()}`;
    const body = { workspaceId: sales.id, nameSingular: "Lead source", namePlural: `Lead sources ${unique()}` };
    expect((await createObjectType(alice.apiKey, body, key)).status).toBe(201);
    const records = await regionDb("us")
      .select({ expiresAt: regional.idempotencyKeys.expiresAt })
      .from(regional.idempotencyKeys)
      .where(eq(regional.idempotencyKeys.key, key));
    expect(records).toHaveLength(1);
    expect(records[0]?.expiresAt).toBeGreaterThan(Date.now() + 23.9 * 3600_000);
    expect(records[0]?.expiresAt).toBeLessThanOrEqual(Date.now() + 24 * 3600_000);
  });
});

describe("request bodies", () => {
  it("413 payload_too_large above 1 MiB", async () => {
    const { alice, sales } = await cast();
    const response = await createObjectType(alice.apiKey, {
      workspaceId: sales.id,
      nameSingular: "x".repeat(1024 * 1024),
      namePlural: "Big",
    });
    expect(response.status).toBe(413);
    expect((await errorOf(response)).code).toBe("payload_too_large");
  });

  it("reads a GET sent with Content-Type: application/json as any other GET (no body is made up for it)", async () => {
    const { alice, sales } = await cast();
    for (const path of [`/crm/objects?workspaceId=${sales.id}`, "/workspaces"]) {
      const response = await call(path, { key: alice.apiKey, headers: { "content-type": "application/json" } });
      expect(response.status, path).toBe(200);
    }
  });

  it("415 unsupported_media_type for a body that is not JSON", async () => {
    const { alice } = await cast();
    const response = await call("/crm/objects", {
      method: "POST",
      key: alice.apiKey,
      headers: { "content-type": "text/plain" },
      body: "name=Vendors",
    });
    expect(response.status).toBe(415);
    expect((await errorOf(response)).code).toBe("unsupported_media_type");
  });

  it("400 with details for malformed JSON and unknown properties", async () => {
    const { alice, sales } = await cast();
    const malformed = await call("/crm/objects", {
      method: "POST",
      key: alice.apiKey,
      headers: { "content-type": "application/json" },
      body: "{",
    });
    expect(malformed.status).toBe(400);
    const unknown = await createObjectType(alice.apiKey, {
      workspaceId: sales.id,
      nameSingular: "V",
      namePlural: `Vs ${unique()}`,
      isSystem: true,
    });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { error: { details: unknown } }).error.details).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: expect.stringContaining("body") })]),
    );
  });
});
