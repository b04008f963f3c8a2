import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, cast } from "./stack";

/**
 * Idempotency-Key (DESIGN.md section 5) on a real write route: POST /crm/objects creates a custom
 * object type, so a replay that ran the handler twice would show as a second row.
 */

const unique = () => crypto.randomUUID().slice(0, 8);

async function objectTypesNamed(namePlural: string): Promise<number> {
  return (await env.US_DB.prepare("select count(*) as n from object_types where name_plural = ?")
    .bind(namePlural)
    .first("n")) as number;
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
    expect(((await reused.json()) as { error: { code: string } }).error.code).toBe("idempotency_key_reused");
  });

  it("answers 409 while the first request with the key is still in flight", async () => {
    const { alice, sales } = await cast();
    const key = `inflight-${unique()}`;
    const body = { workspaceId: sales.id, nameSingular: "Partner", namePlural: `Partners ${unique()}` };
    const responses = await Promise.all([createObjectType(alice.apiKey, body, key), createObjectType(alice.apiKey, body, key)]);
    const statuses = responses.map((response) => response.status).sort();
    // Either the second arrived while the first was in flight (409) or after it finished (replayed 201).
    expect([
      [201, 409],
      [201, 201],
    ]).toContainEqual(statuses);
    expect(await objectTypesNamed(body.namePlural)).toBe(1);
    const conflict = responses.find((response) => response.status === 409);
    if (conflict) expect(((await conflict.json()) as { error: { code: string } }).error.code).toBe("idempotency_key_in_use");
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
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe("invalid_idempotency_key");
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
    const { n } = (await env.US_DB.prepare(
      "select count(*) as n from idempotency_keys where key = ? and expires_at between ? and ?",
    )
      .bind(key, Date.now() + 23.9 * 3600_000, Date.now() + 24 * 3600_000)
      .first()) as { n: number };
    expect(n).toBe(1);
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
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("payload_too_large");
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
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("unsupported_media_type");
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
