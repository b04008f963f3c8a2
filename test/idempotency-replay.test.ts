import { env } from "cloudflare:test";
import { regional } from "@crm/db";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createObjectType, createView, unique } from "./crm";
import { regionDb } from "./fixtures";
import { call, cast } from "./stack";

/** What an Idempotency-Key replays: the same request in any of its spellings, and never a secret. */

const withKey = (idempotencyKey: string, init: Parameters<typeof call>[1]) => ({
  ...init,
  headers: { "idempotency-key": idempotencyKey },
});

const storedResponse = async (idempotencyKey: string) => {
  const rows = await regionDb("us")
    .select({ responseBody: regional.idempotencyKeys.responseBody })
    .from(regional.idempotencyKeys)
    .where(eq(regional.idempotencyKeys.key, idempotencyKey));
  expect(rows).toHaveLength(1);
  return rows[0]?.responseBody as string;
};

describe("Idempotency-Key on a DELETE", () => {
  it("takes no body and `{}` as the same request, in either order", async () => {
    const { alice, sales } = await cast();
    const key = alice.apiKey;
    const object = await createObjectType(key, sales.id);
    for (const [first, second] of [
      [undefined, {}],
      [{}, undefined],
    ]) {
      const view = await createView(key, object.id, { name: `Doomed ${unique()}` });
      const idempotencyKey = `delete-${unique()}`;
      const deleted = await call(`/crm/views/${view.id}`, withKey(idempotencyKey, { method: "DELETE", key, json: first }));
      expect(deleted.status).toBe(200);
      const replay = await call(`/crm/views/${view.id}`, withKey(idempotencyKey, { method: "DELETE", key, json: second }));
      expect(replay.status, await replay.clone().text()).toBe(200);
      expect(replay.headers.get("idempotent-replayed")).toBe("true");
      expect(await replay.json()).toEqual(await deleted.json());
    }
  });
});

describe("Idempotency-Key on responses with a secret", () => {
  const noticePattern = (webhookId: string) => new RegExp(`shown once.*POST /webhooks/${webhookId}/rotate-secret`);

  it("keeps a webhook creation without its secret, and a replay says it was shown once", async () => {
    const { alice, sales } = await cast();
    const idempotencyKey = `webhook-${unique()}`;
    const request = {
      method: "POST",
      key: alice.apiKey,
      json: { workspaceId: sales.id, url: `${env.RECEIVER_URL}/hook-${unique()}`, eventTypes: ["record.created"] },
    };
    const created = await call("/webhooks", withKey(idempotencyKey, request));
    expect(created.status).toBe(201);
    const first = (await created.json()) as { webhook: { id: string }; secret: string; notice?: string };
    expect(first.secret).toMatch(/^whsec_/);
    expect(first).not.toHaveProperty("notice");

    expect(await storedResponse(idempotencyKey)).not.toContain("whsec_");
    const replay = await call("/webhooks", withKey(idempotencyKey, request));
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(await replay.json()).toEqual({
      webhook: first.webhook,
      secret: null,
      notice: expect.stringMatching(noticePattern(first.webhook.id)),
    });
  });

  it("keeps a secret rotation without the new secret", async () => {
    const { alice, sales } = await cast();
    const key = alice.apiKey;
    const created = await call("/webhooks", {
      method: "POST",
      key,
      json: { workspaceId: sales.id, url: `${env.RECEIVER_URL}/hook-${unique()}`, eventTypes: ["record.created"] },
    });
    const { webhook } = (await created.json()) as { webhook: { id: string } };
    const idempotencyKey = `rotate-${unique()}`;
    const rotated = await call(`/webhooks/${webhook.id}/rotate-secret`, withKey(idempotencyKey, { method: "POST", key }));
    expect(rotated.status).toBe(200);
    expect(((await rotated.json()) as { secret: string }).secret).toMatch(/^whsec_/);
    expect(await storedResponse(idempotencyKey)).not.toContain("whsec_");
    const replay = await call(
      `/webhooks/${webhook.id}/rotate-secret`,
      withKey(idempotencyKey, { method: "POST", key, json: {} }),
    );
    expect(replay.status).toBe(200);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(await replay.json()).toMatchObject({ secret: null, notice: expect.stringMatching(noticePattern(webhook.id)) });
  });
});

describe("a replay's request ids", () => {
  it("answers its own X-Request-Id, equal to the error's requestId, and names the first request in Original-Request-Id", async () => {
    const { alice, sales } = await cast();
    const idempotencyKey = `refused-${unique()}`;
    // A 4xx result is kept and replayed like a success.
    const request = () =>
      call(
        "/webhooks",
        withKey(idempotencyKey, { method: "POST", key: alice.apiKey, json: { workspaceId: sales.id, url: "not a url" } }),
      );
    const first = await request();
    expect(first.status).toBe(400);
    const firstId = first.headers.get("x-request-id");
    expect(((await first.json()) as { error: { requestId: string } }).error.requestId).toBe(firstId);
    const replay = await request();
    expect(replay.status).toBe(400);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    const replayId = replay.headers.get("x-request-id");
    expect(replayId).not.toBe(firstId);
    expect(((await replay.json()) as { error: { requestId: string } }).error.requestId).toBe(replayId);
    expect(replay.headers.get("original-request-id")).toBe(firstId);

    const created = (name: string) =>
      call(
        "/crm/objects",
        withKey(`create-${name}`, {
          method: "POST",
          key: alice.apiKey,
          json: { workspaceId: sales.id, nameSingular: name, namePlural: `${name}s` },
        }),
      );
    const name = `Gadget${unique()}`;
    const original = await created(name);
    const again = await created(name);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.headers.get("original-request-id")).toBe(original.headers.get("x-request-id"));
  });
});
