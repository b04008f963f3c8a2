import { Validator } from "@cfworker/json-schema";
import { catalogue, openApiDocument } from "@crm/contracts";
import { regional } from "@crm/db";
import { asc, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { expectStatus, objectTypesOf, unique } from "./crm";
import { regionDb } from "./fixtures";
import { deliver as deliverMail, mailWorkspace, rawMessage } from "./mail";
import { connect, deliver as deliverProviderEvent, expectReceived, inboundPath } from "./meetings";
import { closed } from "./response-contract";
import { call, cast, demo } from "./stack";

type Json = Record<string, unknown>;
interface Integration {
  slug: string;
  name: string;
  logoUrl: string;
  docsUrl: string;
  triggers: { key: string; name: string; description: string; payloadSchema: Json }[];
  actions: { key: string; method: string; path: string; scope: string | null; inputSchema: Json }[];
}

/** A client address of its own, so the per-address window of one test does not meet another's. */
const clientAddress = () => `2001:db8:${unique().slice(0, 4)}:${unique().slice(0, 4)}::7`;

const list = async (headers: Record<string, string> = {}) => call("/public/integrations/crm", { headers });

async function integrations(): Promise<Integration[]> {
  const response = await list();
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: Integration[] }).data;
}

async function automationPlatform(): Promise<Integration> {
  const found = (await integrations()).find((integration) => integration.slug === "automation-platform");
  if (!found) throw new Error("the automation platform is not published");
  return found;
}

const validates = (schema: Json, instance: unknown) => new Validator(schema, "2020-12", false).validate(instance);

describe("GET /public/integrations/crm and /{slug}: the published integrations, without a credential", () => {
  it("lists every entry with real fields, and none of the tenants' ids", async () => {
    const response = await list();
    expect(response.status).toBe(200);
    expect(response.headers.get("x-token-cost")).toBe("0");
    const text = await response.text();
    const { data } = JSON.parse(text) as { data: Integration[] };
    expect(data.map((integration) => integration.slug)).toEqual(["automation-platform", "meeting-notes", "calling", "mcp"]);
    for (const integration of data) {
      expect(integration.logoUrl).toMatch(/^data:image\/svg\+xml,/);
      expect(decodeURIComponent(integration.logoUrl)).toContain("<svg");
      expect(new URL(integration.docsUrl).origin).toBe("http://127.0.0.1:8787");
    }
    const { organizations } = await demo();
    const tenantIds = organizations.flatMap((organization) => [
      organization.id,
      ...organization.workspaces.map((workspace) => workspace.id),
      ...organization.users.map((user) => user.id),
    ]);
    for (const id of tenantIds) expect(text).not.toContain(id);
  });

  it("are documented as public: `security: []`, free, and no MCP tool", () => {
    const document = openApiDocument("http://127.0.0.1:8787") as unknown as {
      paths: Record<string, Record<string, { security: unknown[]; "x-token-cost": number; "x-mcp-tool"?: string }>>;
    };
    for (const path of ["/public/integrations/crm", "/public/integrations/crm/{slug}", "/changelog"]) {
      const entry = document.paths[path]?.get;
      expect(entry?.security, path).toEqual([]);
      expect(entry?.["x-token-cost"]).toBe(0);
      expect(entry?.["x-mcp-tool"]).toBeUndefined();
    }
  });

  it("answers one entry by its slug, the same as in the list; an unknown slug is 404 in the envelope", async () => {
    for (const entry of await integrations()) {
      const response = await call(`/public/integrations/crm/${entry.slug}`);
      expect(response.status).toBe(200);
      expect(((await response.json()) as { integration: Integration }).integration).toEqual(entry);
    }
    const unknown = await call("/public/integrations/crm/no-such-integration");
    expect(unknown.status).toBe(404);
    const { error } = (await unknown.json()) as { error: { code: string; requestId: string } };
    expect(error.code).toBe("not_found");
    expect(unknown.headers.get("x-request-id")).toBe(error.requestId);
    expect((await call("/public/integrations/crm/Not_A_Slug")).status).toBe(400);
  });

  it("has the 14 instant triggers of GET /webhooks/event-types, in its order", async () => {
    const { alice } = await cast();
    const { data: eventTypes } = await expectStatus<{ data: { type: string; description: string }[] }>(
      200,
      "/webhooks/event-types",
      { key: alice.apiKey },
    );
    const { triggers } = await automationPlatform();
    expect(triggers).toHaveLength(14);
    expect(triggers.map((trigger) => trigger.key)).toEqual(eventTypes.map((eventType) => eventType.type));
    expect(triggers.map((trigger) => trigger.description)).toEqual(eventTypes.map((eventType) => eventType.description));
    expect(triggers.find((trigger) => trigger.key === "meeting.transcript_ready")?.name).toBe("Meeting transcript ready");
  });

  it("has an action per public write operation, whose input schema takes the operation's documented example", async () => {
    const { actions } = await automationPlatform();
    const writes = catalogue.filter((operation) => operation.auth === "bearer" && operation.method !== "get");
    expect(actions.map((action) => action.key)).toEqual(writes.map((operation) => operation.operationId));
    const document = openApiDocument("http://127.0.0.1:8787") as unknown as {
      paths: Record<
        string,
        Record<
          string,
          {
            parameters?: { name: string; in: string; schema: { example?: unknown } }[];
            requestBody?: { content: Record<string, { schema: { $ref?: string; example?: Json } }> };
          }
        >
      >;
      components: { schemas: Record<string, { example?: Json }> };
    };
    for (const [index, operation] of writes.entries()) {
      const action = actions[index] as Integration["actions"][number];
      expect(action).toMatchObject({ method: operation.method.toUpperCase(), path: operation.path, scope: operation.scope });
      // The arguments a client would send, from the document's examples, in one object as MCP tools take
      // them: they must pass, and an argument the operation does not have must not.
      const documented = document.paths[operation.path]?.[operation.method];
      const input: Json = {};
      for (const parameter of documented?.parameters ?? [])
        if (parameter.in === "path" || parameter.in === "query") input[parameter.name] = parameter.schema.example;
      const body = documented?.requestBody?.content["application/json"]?.schema;
      const bodyExample = body?.$ref ? document.components.schemas[body.$ref.split("/").pop() as string]?.example : body?.example;
      Object.assign(input, bodyExample);
      expect(validates(action.inputSchema, input).errors, `${action.key}: ${JSON.stringify(input)}`).toEqual([]);
      expect(validates(action.inputSchema, { ...input, notAnArgument: true }).valid).toBe(false);
    }
  });

  it("publishes payload schemas that validate every event type as the outbox delivers it, and refuse a wrong one", async () => {
    const workspace = await mailWorkspace();
    const { key, workspaceId, mailbox } = workspace;
    const people = (await objectTypesOf(key, workspaceId)).find((type) => type.slug === "people")?.id as string;
    // Records, tasks and notes: created, updated, deleted.
    const { record } = await expectStatus<{ record: { id: string } }>(201, "/records", {
      method: "POST",
      key,
      json: { objectTypeId: people, fields: { name: "Payload Person", email: `payload-${unique()}@customer.example` } },
    });
    await expectStatus(200, `/records/${record.id}`, { method: "PATCH", key, json: { fields: { name: "Payload Person II" } } });
    const { task } = await expectStatus<{ task: { id: string } }>(201, `/records/${record.id}/tasks`, {
      method: "POST",
      key,
      json: { title: "Send the quote" },
    });
    await expectStatus(200, `/tasks/${task.id}`, { method: "PATCH", key, json: { status: "done" } });
    await expectStatus(200, `/tasks/${task.id}`, { method: "DELETE", key });
    const { note } = await expectStatus<{ note: { id: string } }>(201, `/records/${record.id}/notes`, {
      method: "POST",
      key,
      json: { title: "Call", contentHtml: "<p>Wants a quote</p>" },
    });
    await expectStatus(200, `/notes/${note.id}`, { method: "PATCH", key, json: { title: "Call summary" } });
    await expectStatus(200, `/notes/${note.id}`, { method: "DELETE", key });
    await expectStatus(200, `/records/${record.id}`, { method: "DELETE", key });
    // Mail in and out: conversation.created, message.received, message.sent.
    expect((await deliverMail(rawMessage({ to: mailbox }), mailbox)).rejected).toBeNull();
    await expectStatus(201, "/inbox/conversations", {
      method: "POST",
      key,
      json: { workspaceId, mailbox, to: ["ada@customer.example"], subject: "Your quote", text: "Attached." },
    });
    // A meeting from the notes provider, then its transcript.
    const notes = await connect(key, workspaceId);
    const meetingId = `payload-${unique()}`;
    const path = inboundPath(notes.connection);
    const at = Date.now();
    await expectReceived(
      await deliverProviderEvent(path, notes.secret, {
        type: "meeting.scheduled",
        occurredAt: at,
        data: { meetingId, title: "Quote review", startTimeMs: at + 86_400_000 },
      }),
    );
    await expectReceived(
      await deliverProviderEvent(path, notes.secret, {
        type: "transcript.ready",
        occurredAt: at + 1,
        data: { meetingId, actionItems: [{ id: "ai-1", text: "Send the revised quote" }] },
      }),
    );

    const { eventOutbox } = regional;
    const delivered = await regionDb("us")
      .select({ type: eventOutbox.type, payload: eventOutbox.payload })
      .from(eventOutbox)
      .where(eq(eventOutbox.workspaceId, workspaceId))
      .orderBy(asc(eventOutbox.id));
    const { triggers } = await automationPlatform();
    const schemaOf = new Map(triggers.map((trigger) => [trigger.key, trigger.payloadSchema]));
    for (const event of delivered) {
      const payload = JSON.parse(event.payload) as Json;
      const schema = schemaOf.get(event.type) as Json;
      expect(validates(schema, payload).errors, `${event.type}: ${event.payload}`).toEqual([]);
      // The schema is the event's own: another type or a missing id fail it.
      expect(
        validates(schema, { ...payload, type: event.type === "record.created" ? "task.created" : "record.created" }).valid,
      ).toBe(false);
      const { id: _id, ...withoutId } = payload.data as Json;
      expect(validates(schema, { ...payload, data: withoutId }).valid).toBe(false);
      // Closed as the response checks close them: the event carries nothing its schema does not declare.
      expect(validates(closed(schema) as Json, payload).errors, `${event.type} declares all`).toEqual([]);
    }
    expect(new Set(delivered.map((event) => event.type))).toEqual(new Set(triggers.map((trigger) => trigger.key)));
  });
});

describe("caching of the public answers", () => {
  const cacheable = ["/public/integrations/crm", "/public/integrations/crm/automation-platform", "/changelog"];

  it("sends a strong ETag and Cache-Control, and 304 without a body for If-None-Match naming it, weakly or in a list", async () => {
    for (const path of cacheable) {
      const first = await call(path);
      expect(first.status).toBe(200);
      const etag = first.headers.get("etag") as string;
      expect(etag).toMatch(/^"[\w-]{43}"$/);
      expect(first.headers.get("cache-control")).toBe("public, max-age=300");
      for (const ifNoneMatch of [etag, `W/${etag}`, `"elsewhere", ${etag}`, `"a",,  W/${etag} , "b"`, "*"]) {
        const again = await call(path, { headers: { "if-none-match": ifNoneMatch } });
        expect(again.status, `${path} If-None-Match: ${ifNoneMatch}`).toBe(304);
        expect(await again.text()).toBe("");
        expect(again.headers.get("etag")).toBe(etag);
        expect(again.headers.get("cache-control")).toBe("public, max-age=300");
      }
      // Another tag, a tag without quotes, or a field that is not a list of tags: the full answer.
      for (const ifNoneMatch of ['"elsewhere"', etag.slice(1, -1), `${etag} garbage`, `W/${etag.slice(0, -1)}`]) {
        const full = await call(path, { headers: { "if-none-match": ifNoneMatch } });
        expect(full.status, `${path} If-None-Match: ${ifNoneMatch}`).toBe(200);
        expect(full.headers.get("etag")).toBe(etag);
        expect(await full.text()).toBe(await first.clone().text());
      }
    }
  });

  it("gives each entry and the list their own ETag", async () => {
    const tags = await Promise.all(
      ["/public/integrations/crm", ...(await integrations()).map((entry) => `/public/integrations/crm/${entry.slug}`)].map(
        async (path) => (await call(path)).headers.get("etag"),
      ),
    );
    expect(new Set(tags).size).toBe(tags.length);
  });
});

describe("rate limit of the public answers", () => {
  it("admits 60 requests a minute per client address, 304s included, then 429; another address is unaffected", async () => {
    const address = clientAddress();
    const etag = (await list({ "cf-connecting-ip": address })).headers.get("etag") as string;
    const statuses: number[] = [];
    for (let i = 1; i < 60; i++) {
      const headers: Record<string, string> = { "cf-connecting-ip": address };
      if (i % 2 === 0) headers["if-none-match"] = etag;
      statuses.push((await call(i % 3 === 0 ? "/changelog" : "/public/integrations/crm", { headers })).status);
    }
    expect(statuses.every((status) => status === 200 || status === 304)).toBe(true);
    const refused = await list({ "cf-connecting-ip": address });
    expect(refused.status).toBe(429);
    const { error } = (await refused.json()) as { error: { code: string; details: unknown } };
    expect(error).toMatchObject({ code: "rate_limited", details: { scope: "ip", limit: 60, windowMs: 60_000 } });
    expect((await list({ "cf-connecting-ip": clientAddress() })).status).toBe(200);
  });
});
