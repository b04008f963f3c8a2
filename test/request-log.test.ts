import { exports } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { RequestLogLine } from "../workers/gateway/src/request-log";
import { apiResource, clientAddress, origin } from "./oauth-client";
import { call, cast } from "./stack";

const gateway = (exports as unknown as { default: Fetcher }).default;

/**
 * Everything the gateway writes to the console while `run` sends real requests through the stack
 * (the test runs in the gateway's own isolate, so its console is the gateway's): the request lines,
 * and every other line, which must not leak either.
 */
async function logsOf<T>(run: () => Promise<T>): Promise<{ result: T; requests: RequestLogLine[]; all: string[] }> {
  const all: string[] = [];
  const capture = (...args: unknown[]) => {
    all.push(args.map(String).join(" "));
  };
  for (const level of ["log", "info", "warn", "error", "debug"] as const) vi.spyOn(console, level).mockImplementation(capture);
  const result = await run();
  vi.restoreAllMocks();
  const requests = all
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as RequestLogLine)
    .filter((line) => line.message === "request");
  return { result, requests, all };
}

const lineOf = (requests: RequestLogLine[], response: Response) => {
  const id = response.headers.get("x-request-id");
  const lines = requests.filter((line) => line.requestId === id);
  expect(lines, `one line for request ${id}`).toHaveLength(1);
  return lines[0] as RequestLogLine;
};

/** The installed app's client-credentials grant: its secret travels in the Authorization header. */
const clientCredentialsToken = (app: { clientId: string; clientSecret: string }) =>
  gateway.fetch(`${origin}/oauth/token`, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      authorization: `Basic ${btoa(`${app.clientId}:${app.clientSecret}`)}`,
      "cf-connecting-ip": clientAddress(),
    },
    body: new URLSearchParams({ grant_type: "client_credentials", resource: apiResource }),
  });

let people: Awaited<ReturnType<typeof cast>>;

beforeAll(async () => {
  people = await cast();
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe("one structured log line per gateway request", () => {
  it("names the route template, actor, organization, region, status, duration and token cost", async () => {
    const { alice, dave, acme, globex } = people;
    const objects = await call(`/crm/objects?workspaceId=${globex.workspaces[0]?.id}`, { key: dave.apiKey });
    const globexObject = ((await objects.json()) as { objects: { id: string }[] }).objects[0]?.id as string;
    const { result, requests } = await logsOf(async () => ({
      acmeList: await call("/workspaces", { key: alice.apiKey }),
      globexRead: await call(`/crm/objects/${globexObject}/fields`, { key: dave.apiKey }),
    }));
    const { acmeList, globexRead } = result;
    expect(acmeList.status).toBe(200);
    expect(globexRead.status).toBe(200);

    const acmeLine = lineOf(requests, acmeList);
    expect(acmeLine).toEqual({
      level: "info",
      message: "request",
      requestId: acmeList.headers.get("x-request-id"),
      route: "GET /api/v1/workspaces",
      operationId: "listWorkspaces",
      status: 200,
      actorType: "user",
      credential: "api_key",
      organizationId: acme.id,
      region: "us",
      durationMs: expect.any(Number),
      tokenCost: Number(acmeList.headers.get("x-token-cost")),
    });
    expect(acmeLine.durationMs).toBeGreaterThanOrEqual(0);

    const globexLine = lineOf(requests, globexRead);
    expect(globexLine).toMatchObject({
      route: "GET /api/v1/crm/objects/:objectTypeId/fields",
      status: 200,
      organizationId: globex.id,
      region: "eu",
      tokenCost: Number(globexRead.headers.get("x-token-cost")),
    });
    expect(globexLine.tokenCost).toBeGreaterThan(0);
    // The template, never the path with its ids.
    expect(JSON.stringify(globexLine)).not.toContain(globexObject);
  });

  it("logs refusals with their status, and no credential, secret or body ever reaches the console", async () => {
    const { alice, sales, webApp } = people;
    const forgedKey = `crm_${"f0".repeat(24)}`;
    const marker = `do-not-log-${crypto.randomUUID()}`;
    const { result, requests, all } = await logsOf(async () => ({
      unknownKey: await call("/workspaces", { key: forgedKey }),
      webhook: await call("/webhooks", {
        method: "POST",
        key: alice.apiKey,
        json: {
          workspaceId: sales.id,
          url: `https://hooks.example.com/${marker}`,
          description: marker,
          eventTypes: ["record.created"],
        },
      }),
      invalid: await call("/webhooks", {
        method: "POST",
        key: alice.apiKey,
        json: { workspaceId: sales.id, url: `https://hooks.example.com/${marker}`, eventTypes: [marker] },
      }),
      token: await clientCredentialsToken(webApp),
      unknownPath: await gateway.fetch(`${origin}/api/v1/${marker}?token=${marker}`),
    }));
    const { unknownKey, webhook, invalid, token, unknownPath } = result;
    expect([unknownKey.status, webhook.status, invalid.status, token.status, unknownPath.status]).toEqual([
      401, 201, 400, 200, 404,
    ]);
    const { secret } = (await webhook.json()) as { secret: string };
    const { access_token: accessToken } = (await token.json()) as { access_token: string };

    expect(lineOf(requests, unknownKey)).toMatchObject({
      route: "GET /api/v1/workspaces",
      operationId: "listWorkspaces",
      status: 401,
      actorType: null,
      organizationId: null,
      tokenCost: null,
    });
    expect(lineOf(requests, webhook)).toMatchObject({
      route: "POST /api/v1/webhooks",
      status: 201,
      organizationId: people.acme.id,
    });
    expect(lineOf(requests, invalid)).toMatchObject({ route: "POST /api/v1/webhooks", status: 400, tokenCost: 0 });
    expect(lineOf(requests, token)).toMatchObject({ route: "POST /oauth/token", status: 200, operationId: null });
    expect(lineOf(requests, unknownPath)).toMatchObject({ status: 404, operationId: null });

    const written = all.join("\n");
    for (const leaked of [forgedKey, alice.apiKey, secret, webApp.clientSecret, accessToken, marker])
      expect(written).not.toContain(leaked);
    // Not even a recognisable part of a credential: the tail of a key is as secret as the key.
    expect(written).not.toMatch(/crm_[0-9a-f]{8}|whsec_|eyJ[\w-]{8}/);
  });

  it("an OAuth token's request names the app it acts for", async () => {
    const { webApp, acme } = people;
    const { access_token: accessToken } = (await (await clientCredentialsToken(webApp)).json()) as { access_token: string };
    const { result, requests } = await logsOf(() => call("/workspaces", { key: accessToken }));
    expect(lineOf(requests, result)).toMatchObject({
      actorType: "app",
      credential: "oauth",
      organizationId: acme.id,
      region: "us",
      status: 200,
    });
  });
});
