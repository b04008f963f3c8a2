import { env } from "cloudflare:test";
import { describeError, redactMessage, respondWithError } from "@crm/contracts";
import { newId, regional } from "@crm/db";
import { drizzle } from "drizzle-orm/d1";
import { Hono } from "hono";
import { afterEach, describe, expect, it, vi } from "vitest";

const secret = `whsec_${"5e".repeat(32)}`;

/** A webhook row whose secret (and description) only ever travel as SQL parameters. */
function webhookRow(id: string, workspaceId: string) {
  return {
    id,
    workspaceId,
    // Null breaks the NOT NULL constraint: a failure the unique-constraint mapping does not answer as 409.
    url: null as unknown as string,
    eventTypes: ["record.created"],
    objectTypeIds: [],
    description: "private-receiver",
    isActive: true,
    disabledReason: null,
    secret,
    previousSecret: null,
    previousSecretExpiresAt: null,
    createdBy: "usr_logtest",
    createdAt: 0,
    updatedAt: 0,
  };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("unexpected errors are logged without the values they quote", () => {
  it("go through the one redacting logger: no other console.error in the Workers and packages", () => {
    const sources = import.meta.glob(["../workers/*/src/**/*.{ts,tsx}", "../packages/*/src/**/*.ts", "!**/*.test.ts"], {
      query: "?raw",
      import: "default",
      eager: true,
    }) as Record<string, string>;
    expect(Object.keys(sources).length).toBeGreaterThan(100);
    const sites = Object.entries(sources).flatMap(([path, text]) =>
      path.endsWith("/contracts/src/error-log.ts")
        ? []
        : text
            .split("\n")
            .flatMap((line, index) => (/console\.error\(|console\.\w+\(.*String\(/.test(line) ? [`${path}:${index + 1}`] : [])),
    );
    expect(sites).toEqual([]);
  });

  it("a failed drizzle query on D1 with a webhook secret as parameter: requestId and route logged, the secret not", async () => {
    const db = drizzle(env.US_DB_1);
    const id = newId("whk");
    const app = new Hono();
    // drizzle's message of the failed insert lists every parameter.
    app.post("/api/v1/webhooks/:webhookId", async (c) => {
      await db.insert(regional.webhooks).values(webhookRow(c.req.param("webhookId"), "ws_logtest"));
      return c.json({});
    });
    app.onError((error, c) => respondWithError(error, c, "req_logtest0000000000000000"));
    const logged: string[] = [];
    vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => {
      logged.push(args.map(String).join(" "));
    });

    const response = await app.request(`/api/v1/webhooks/${id}`, { method: "POST" });

    expect(response.status).toBe(500);
    expect(JSON.stringify(await response.json())).not.toContain(secret);
    expect(logged).toHaveLength(1);
    const [line] = logged as [string];
    expect(line).not.toContain(secret);
    expect(line).not.toContain("private-receiver");
    expect(line).not.toContain(id);
    const entry = JSON.parse(line);
    expect(entry).toMatchObject({
      level: "error",
      requestId: "req_logtest0000000000000000",
      route: "POST /api/v1/webhooks/:webhookId",
      code: "internal_error",
      error: { name: "DrizzleQueryError", cause: { name: "Error" } },
    });
    // The class, the statement (placeholders only) and the frames stay, so the failure can still be found.
    expect(entry.error.stack).toMatch(/^DrizzleQueryError: Failed query: insert into "webhooks"/);
    expect(entry.error.stack).toMatch(/\n\s+at /);
    expect(entry.error.cause.stack).toContain("NOT NULL constraint failed: webhooks.url");
  });

  it("D1's own messages lose the values they quote, and so do causes", () => {
    expect(redactMessage("D1_TYPE_ERROR: Type 'object' not supported for value 'whsec_abc'")).toBe(
      "D1_TYPE_ERROR: Type '…' not supported for value '…'",
    );
    expect(redactMessage("Failed query: select ? where x = 'a''b'\nparams: whsec_abc,42")).toBe(
      "Failed query: select ? where x = '…'",
    );
    const error = new Error("outer 'whsec_outer'", { cause: new TypeError("inner 'whsec_inner' params: whsec_tail") });
    const text = JSON.stringify(describeError(error));
    expect(text).not.toMatch(/whsec_/);
    expect(describeError(error)).toMatchObject({ name: "Error", cause: { name: "TypeError" } });
  });
});
