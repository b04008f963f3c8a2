import { exports } from "cloudflare:workers";
import { catalogue, conditionalResourceOf, errorStatus, openApiDocument } from "@crm/contracts";
import { describe, expect, it } from "vitest";
import { scalarBundlePath } from "../workers/gateway/src/api-reference";
import { openApiDocumentFor } from "../workers/gateway/src/openapi";
import { call } from "./stack";

const gateway = (exports as unknown as { default: Fetcher }).default;

describe("GET /openapi.json", () => {
  it("is the bundled template at the request's origin, equal to the document generated from the catalogue now", async () => {
    // The gateway parses a template written at build time (scripts/write-bundled-catalogue.mjs): a
    // template older than the catalogue, or an origin put in wrongly, differs from this generation.
    const served = await (await call("/openapi.json")).json();
    expect(served).toEqual(JSON.parse(JSON.stringify(openApiDocument("http://127.0.0.1:8787"))));
    // A deployment's origin: its server, OAuth endpoints and contact, and "production" in the server's description.
    expect(openApiDocumentFor("https://api.crm.example")).toEqual(openApiDocument("https://api.crm.example"));
  });

  it("is an OpenAPI 3.1 document of every catalogue operation with both security schemes and every error", async () => {
    const response = await call("/openapi.json");
    expect(response.status).toBe(200);
    const document = (await response.json()) as {
      openapi: string;
      info: { version: string };
      servers: { url: string }[];
      components: { securitySchemes: Record<string, { type: string }> };
      paths: Record<
        string,
        Record<
          string,
          {
            operationId: string;
            security: unknown[];
            responses: Record<string, unknown>;
            "x-scope": unknown;
            "x-token-cost": number;
          }
        >
      >;
    };
    expect(document.openapi).toBe("3.1.0");
    expect(document.info.version).toBe("1.0.0");
    expect(document.servers[0]?.url).toBe("http://127.0.0.1:8787/api/v1");
    expect(document.components.securitySchemes.ApiKeyBearer?.type).toBe("http");
    expect(document.components.securitySchemes.ServiceOAuth?.type).toBe("oauth2");
    expect(document.components.securitySchemes.ConsoleSession).toMatchObject({
      type: "apiKey",
      in: "cookie",
      name: "__Host-session",
    });
    for (const operation of catalogue) {
      const entry = document.paths[operation.path]?.[operation.method];
      expect(entry?.operationId).toBe(operation.operationId);
      // The `/api-keys` routes take the console session only, public routes (unsubscribe) nothing,
      // signed inbound webhooks a Standard Webhooks signature; every other route a bearer credential.
      const security = {
        session: [{ ConsoleSession: [] }],
        signature: [{ WebhookSignature: [] }],
        none: [],
        bearer: [{ ApiKeyBearer: [] }, { ServiceOAuth: operation.scope ? [operation.scope] : [] }],
      }[operation.auth];
      expect(entry?.security).toEqual(security);
      expect(entry?.["x-token-cost"]).toBe(operation.costUnits / 100);
      const errorStatuses = {
        none: ["400", "429", "500"],
        signature: ["400", "401", "404", "413", "429", "500"],
        session: ["400", "401", "403", "404", "429", "500"],
        bearer: ["400", "401", "403", "404", "429", "500"],
      }[operation.auth];
      expect(Object.keys(entry?.responses ?? {})).toEqual(expect.arrayContaining(errorStatuses));
    }
  });
});

interface DocumentedOperation {
  description?: string;
  parameters?: { name: string; in: string; schema?: { type?: unknown; enum?: unknown[] } }[];
  requestBody?: { content: Record<string, { schema: unknown }> };
  responses: Record<
    string,
    { headers?: Record<string, unknown>; content?: Record<string, { schema: { properties?: Record<string, unknown> } }> }
  >;
}

describe("the OpenAPI document as generated clients read it", () => {
  const document = openApiDocument("http://127.0.0.1:8787") as unknown as {
    paths: Record<string, Record<string, DocumentedOperation>>;
    components: { schemas: Record<string, unknown> };
  };
  const entries = catalogue.map((operation) => ({
    operation,
    entry: document.paths[operation.path]?.[operation.method] as DocumentedOperation,
  }));

  /** Every schema reachable from `schema`, `$ref`s followed once. */
  function reachable(schema: unknown, seen = new Set<unknown>()): unknown[] {
    if (schema === null || typeof schema !== "object" || seen.has(schema)) return [];
    seen.add(schema);
    const ref = (schema as { $ref?: string }).$ref;
    const target = ref ? document.components.schemas[ref.split("/").pop() as string] : undefined;
    return [schema, ...reachable(target, seen), ...Object.values(schema).flatMap((child) => reachable(child, seen))];
  }

  it("types every yes-or-no query parameter boolean, never as the strings `true` and `false`", () => {
    const query = entries.flatMap(({ operation, entry }) =>
      (entry.parameters ?? [])
        .filter((parameter) => parameter.in === "query")
        .map((parameter) => ({ name: `${operation.operationId} ${parameter.name}`, schema: parameter.schema ?? {} })),
    );
    const isBooleanText = (value: unknown) => value === "true" || value === "false";
    const spelledOut = query.filter(({ schema }) => schema.enum?.every(isBooleanText));
    expect(spelledOut.map(({ name }) => name)).toEqual([]);
    const booleans = query.filter(({ schema }) => schema.type === "boolean").map(({ name }) => name);
    expect(booleans).toEqual(expect.arrayContaining(["listConversations hasLinkedRecords", "listConversations isClosed"]));
  });

  it("states request defaults in descriptions, never as `default` (generated types would make the property required)", () => {
    for (const { operation, entry } of entries) {
      const withDefault = reachable(entry.requestBody).filter((schema) => Object.hasOwn(schema as object, "default"));
      expect(withDefault, operation.operationId).toEqual([]);
    }
  });

  it("declares every required property in the schema that requires it (Ajv's strictRequired)", () => {
    const undeclared = Object.entries(document.components.schemas).flatMap(([name, component]) =>
      reachable(component).flatMap((schema) => {
        const { required = [], properties = {} } = schema as { required?: string[]; properties?: object };
        return required.filter((property) => !Object.hasOwn(properties, property)).map((property) => `${name}: ${property}`);
      }),
    );
    expect(undeclared).toEqual([]);
  });

  it("keeps every named component non-nullable: null is allowed where it is used, never in the component", () => {
    // A nullable component makes every use of it nullable in a generated client (assignees typed `(Person | null)[]`).
    const nullable = Object.entries(document.components.schemas)
      .filter(([, schema]) => [(schema as { type?: unknown }).type].flat().includes("null"))
      .map(([name]) => name);
    expect(nullable).toEqual([]);
  });

  it("describes every operation and declares the headers of its successes", () => {
    for (const { operation, entry } of entries) {
      expect(entry.description, operation.operationId).toBeTruthy();
      for (const [status, response] of Object.entries(entry.responses).filter(([status]) => status.startsWith("2"))) {
        const expected = ["X-Request-Id", "RateLimit-Policy", "RateLimit", "X-Token-Cost"];
        if (operation.method !== "get") expected.push("Idempotent-Replayed", "Original-Request-Id");
        // Public answers that change only with a deploy carry their validator (and answer 304 to it).
        if (entry.responses["304"]) expected.push("ETag", ...(operation.auth === "none" ? ["Cache-Control"] : []));
        // A conditional write answers the resource's validator after the change (DELETE answers no resource).
        if (entry.responses["412"] && operation.method !== "delete") expected.push("ETag");
        // A creation of a resource with a validator answers the new resource's.
        if (operation.method === "post" && conditionalResourceOf(operation, catalogue)) expected.push("ETag");
        expect(Object.keys(response.headers ?? {}), `${operation.operationId} ${status}`).toEqual(expected);
      }
      expect(Object.keys(entry.responses["429"]?.headers ?? {})).toContain("Retry-After");
      // A public route takes no credential, so it has no 401 to challenge with.
      if (operation.auth !== "none") expect(Object.keys(entry.responses["401"]?.headers ?? {})).toContain("WWW-Authenticate");
    }
  });

  it("opens with what a new user needs: authentication, limits and costs, idempotency, pagination, errors, webhooks, MCP", () => {
    const intro = (document as unknown as { info: { description: string } }).info.description;
    const sections = [...intro.matchAll(/^## (.+)$/gm)].map((match) => match[1]);
    expect(sections).toEqual([
      "Authentication",
      "Rate limits and costs",
      "Idempotency",
      "Pagination",
      "Errors",
      "Webhooks and signatures",
      "MCP",
    ]);
    for (const fact of [
      "X-Service-Organization-Id",
      "Idempotency-Key",
      "pagination.cursor",
      "webhook-signature",
      "X-Token-Cost",
      "/mcp",
    ])
      expect(intro, fact).toContain(fact);
  });

  it("says what the server checks: attachment types, text or html, non-empty fields, the organization header", () => {
    const schema = (name: string) =>
      document.components.schemas[name] as { anyOf?: unknown; properties: Record<string, unknown> };
    // The attachment is answered with its own stored type, not always application/octet-stream.
    const download = document.paths["/inbox/messages/{messageId}/attachments/{attachmentId}"]?.get;
    expect(Object.keys(download?.responses["200"]?.content ?? {})).toEqual(["*/*"]);
    for (const name of ["ComposeConversation", "SendMessage", "PutConversationDraft", "CreateComment"])
      expect(schema(name).anyOf, name).toMatchObject([
        { properties: { text: {} }, required: ["text"] },
        { properties: { html: {} }, required: ["html"] },
      ]);
    for (const name of ["CreateRecord", "UpdateRecord", "AssertRecord"])
      expect(schema(name).properties.fields, name).toMatchObject({ minProperties: 1 });
    for (const { operation, entry } of entries) {
      const declared = JSON.stringify((entry as { parameters?: unknown }).parameters ?? []).includes("ServiceOrganizationId");
      expect(declared, operation.operationId).toBe(operation.auth === "bearer" || operation.auth === "session");
    }
  });

  it("lists under each error status exactly codes of that status in errorStatus", () => {
    for (const { operation, entry } of entries) {
      for (const [status, response] of Object.entries(entry.responses).filter(([status]) => Number(status) >= 400)) {
        const error = response.content?.["application/json"]?.schema.properties?.error as {
          properties: { code: { enum: (keyof typeof errorStatus)[] } };
        };
        const codes = error.properties.code.enum;
        expect(codes.length, `${operation.operationId} ${status}`).toBeGreaterThan(0);
        for (const code of codes) expect(errorStatus[code], `${operation.operationId} ${status} ${code}`).toBe(Number(status));
      }
    }
  });
});

describe("GET /docs", () => {
  it("serves the Scalar reference over this origin's document, loading Scalar from this origin only", async () => {
    const response = await call("/docs");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    const page = await response.text();
    expect(page).toContain(`import { createApiReference } from '${scalarBundlePath}'`);
    expect(page).toContain('"url": "/api/v1/openapi.json"');
    expect(page).not.toMatch(/cdn\.jsdelivr|unpkg|fonts\.scalar/);
    // Every script runs by this origin or the response's nonce; requests go to this origin only.
    const policy = response.headers.get("content-security-policy") ?? "";
    const nonce = /'nonce-([^']+)'/.exec(policy)?.[1];
    expect(nonce).toBeTruthy();
    expect(page.match(/<script\b[^>]*>/g)?.every((tag) => tag.includes(`nonce="${nonce}"`))).toBe(true);
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("connect-src 'self';");
    // A fresh nonce per response, so none can be learned from an earlier page.
    const again = (await call("/docs")).headers.get("content-security-policy");
    expect(again).not.toBe(policy);
  });

  it("loads Scalar through the gateway from the assets-only Worker, which serves nothing but its files", async () => {
    const asset = (path: string, init?: RequestInit) => gateway.fetch(`http://127.0.0.1:8787${path}`, init);
    const bundle = await asset(scalarBundlePath);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get("content-type")).toMatch(/^text\/javascript/);
    expect((await bundle.text()).length).toBeGreaterThan(100_000);
    expect((await asset(scalarBundlePath, { method: "HEAD" })).status).toBe(200);
    const missing = await asset("/docs-assets/scalar/no-such-chunk.js");
    expect(missing.status).toBe(404);
    await missing.body?.cancel();
    // Only reads are forwarded; anything else is the gateway's own answer, in the error envelope.
    const posted = await asset(scalarBundlePath, { method: "POST", body: "x" });
    expect(posted.status).toBe(404);
    expect(((await posted.json()) as { error: { code: string } }).error.code).toBe("not_found");
  });

  it("is the page the document names for reference and support", async () => {
    const document = (await (await call("/openapi.json")).json()) as { info: { contact: { url: string } } };
    expect(document.info.contact.url).toBe("http://127.0.0.1:8787/api/v1/docs");
  });
});
