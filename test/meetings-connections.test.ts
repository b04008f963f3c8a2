import { env } from "cloudflare:test";
import { control, regional } from "@crm/db";
import { eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { beforeAll, describe, expect, it } from "vitest";
import { errorOf, expectStatus } from "./crm";
import { countRows } from "./fixtures";
import { type Connection, connect, deliver, expectReceived, inboundPath } from "./meetings";
import { call, cast } from "./stack";

const event = (meetingId: string) => ({
  type: "meeting.scheduled",
  occurredAt: Date.now(),
  data: { meetingId, title: "Connection check", startTimeMs: Date.now() + 3_600_000 },
});

let people: Awaited<ReturnType<typeof cast>>;
beforeAll(async () => {
  people = await cast();
});

describe("provider connections", () => {
  it("creates a connection with a whsec_ secret shown once and an inbound URL of its kind", async () => {
    const { alice, sales } = people;
    const notes = await connect(alice.apiKey, sales.id, "meeting_notes", "Notetaker");
    expect(notes.secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    expect(notes.connection).toMatchObject({
      workspaceId: sales.id,
      provider: "meeting_notes",
      name: "Notetaker",
      secretRotatedAt: null,
    });
    expect(notes.connection.id).toMatch(/^conn_/);
    expect(notes.connection.inboundUrl).toBe(
      `http://127.0.0.1:8787/api/v1/integrations/meeting-notes/webhooks/${notes.connection.id}`,
    );
    const calling = await connect(alice.apiKey, sales.id, "calling", "Air Call");
    expect(calling.connection.inboundUrl).toBe(`http://127.0.0.1:8787/api/v1/calling/webhooks/air-call/${calling.connection.id}`);
  });

  it("keeps the secret out of an idempotent replay", async () => {
    const { alice, sales } = people;
    const init = {
      method: "POST",
      key: alice.apiKey,
      headers: { "idempotency-key": `conn-${crypto.randomUUID()}` },
      json: { workspaceId: sales.id, provider: "meeting_notes", name: "Replayed" },
    };
    const first = (await (await call("/integrations/connections", init)).json()) as { secret: string; connection: Connection };
    const replay = await call("/integrations/connections", init);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    const body = (await replay.json()) as { secret: string | null; notice: string; connection: Connection };
    expect(first.secret).toMatch(/^whsec_/);
    expect(body.secret).toBeNull();
    expect(body.notice).toContain("rotate-secret");
    expect(body.connection.id).toBe(first.connection.id);
  });

  it("lists the workspace's connections without secrets", async () => {
    const { alice, sales } = people;
    const { connection } = await connect(alice.apiKey, sales.id);
    const { data } = await expectStatus<{ data: Connection[] }>(200, `/integrations/connections?workspaceId=${sales.id}`, {
      key: alice.apiKey,
    });
    const listed = data.find((candidate) => candidate.id === connection.id);
    expect(listed).toEqual(connection);
    expect(JSON.stringify(data)).not.toContain("whsec_");
  });

  it("is for admins and owners: a member and a viewer get 403", async () => {
    const { bob, carol, sales } = people;
    for (const key of [bob.apiKey, carol.apiKey]) {
      const response = await call("/integrations/connections", {
        method: "POST",
        key,
        json: { workspaceId: sales.id, provider: "calling", name: "Nope" },
      });
      expect(response.status).toBe(403);
      expect((await errorOf(response)).code).toBe("forbidden");
    }
  });

  it("accepts the old secret for 24 hours after a rotation, and the new one", async () => {
    const { alice, sales } = people;
    const { connection, secret: old } = await connect(alice.apiKey, sales.id);
    const rotated = await expectStatus<{ connection: Connection; secret: string }>(
      200,
      `/integrations/connections/${connection.id}/rotate-secret`,
      { method: "POST", key: alice.apiKey },
    );
    expect(rotated.secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    expect(rotated.secret).not.toBe(old);
    expect(rotated.connection.secretRotatedAt).toBeGreaterThan(0);
    await expectReceived(await deliver(inboundPath(connection), old, event(`rot-old-${crypto.randomUUID()}`)));
    await expectReceived(await deliver(inboundPath(connection), rotated.secret, event(`rot-new-${crypto.randomUUID()}`)));
    // A second rotation retires the first secret at once: only the previous one keeps its day.
    const again = await expectStatus<{ secret: string }>(200, `/integrations/connections/${connection.id}/rotate-secret`, {
      method: "POST",
      key: alice.apiKey,
    });
    expect((await deliver(inboundPath(connection), old, event(`rot-gone-${crypto.randomUUID()}`))).status).toBe(401);
    await expectReceived(await deliver(inboundPath(connection), again.secret, event(`rot-2-${crypto.randomUUID()}`)));
  });

  it("deletes a connection: its inbound URL answers 404 and the gateway's route is gone", async () => {
    const { alice, sales } = people;
    const { connection, secret } = await connect(alice.apiKey, sales.id);
    const routes = () =>
      drizzle(env.CONTROL_DB)
        .select()
        .from(control.connectionRoutes)
        .where(eq(control.connectionRoutes.connectionId, connection.id));
    expect(await routes()).toHaveLength(1);
    await expectStatus(200, `/integrations/connections/${connection.id}`, { method: "DELETE", key: alice.apiKey });
    expect(await routes()).toHaveLength(0);
    const response = await deliver(inboundPath(connection), secret, event("after-delete"));
    expect(response.status).toBe(404);
    expect((await errorOf(response)).code).toBe("not_found");
    await expectStatus(404, `/integrations/connections/${connection.id}`, { method: "DELETE", key: alice.apiKey });
  });

  it("routes a Globex connection to the eu region, where its meetings stay", async () => {
    const { dave, globex } = people;
    const workspaceId = globex.workspaces[0]?.id as string;
    const { connection, secret } = await connect(dave.apiKey, workspaceId);
    const meetingId = `eu-${crypto.randomUUID()}`;
    await expectReceived(await deliver(inboundPath(connection), secret, event(meetingId)));
    const stored = eq(regional.meetings.externalId, meetingId);
    expect(await countRows("eu", regional.meetings, stored)).toBe(1);
    expect(await countRows("us", regional.meetings, stored)).toBe(0);
  });
});
