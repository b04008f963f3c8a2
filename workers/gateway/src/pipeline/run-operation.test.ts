import { createExecutionContext, env } from "cloudflare:test";
import { ApiError, costUnits, defineOperation, jsonResponse, operations } from "@crm/contracts";
import { z } from "@hono/zod-openapi";
import { drizzle } from "drizzle-orm/d1";
import { describe, expect, it } from "vitest";
import { newRequestFacts } from "../request-facts";
import type { OperationRequest } from "./operation-call";
import { runOperation } from "./run-operation";

/**
 * The pipeline's branches for operations without a bearer credential. No catalogue operation is
 * public yet, so this defines its own; the gateway has no handler for it, hence the 404 once the
 * pipeline has let it through. Signed webhooks use the catalogue's inbound operations.
 */
const withoutCredential = (auth: "none") =>
  defineOperation({
    operationId: `test_${auth}`,
    tag: "Usage",
    summary: `An operation with auth ${auth}`,
    description: "Defined by this test only.",
    scope: null,
    costUnits: costUnits.free,
    mcpTool: null,
    auth,
    servedBy: "gateway",
    method: "get",
    path: `/test/${auth}`,
    responses: { 200: jsonResponse("Nothing", z.object({})) },
  });

const call = () => ({
  env,
  executionCtx: createExecutionContext(),
  controlDb: drizzle(env.CONTROL_DB),
  requestId: "req_test",
  requestFacts: newRequestFacts(),
});

const request = (path: string, ip: string, authorization?: string): OperationRequest => ({
  method: "GET",
  url: new URL(`https://gateway.test/api/v1${path}`),
  headers: new Headers({ "cf-connecting-ip": ip, ...(authorization ? { authorization } : {}) }),
  body: null,
});

const uniqueIp = () => `2001:db8:${crypto.randomUUID().slice(0, 4)}:${crypto.randomUUID().slice(0, 4)}::1`;

describe("runOperation without a bearer credential", () => {
  it("runs a public operation without authentication, within the client's own window", async () => {
    const operation = withoutCredential("none");
    const ip = uniqueIp();
    const first = await runOperation(call(), operation, request(operation.path, ip));
    expect(first.status).toBe(404);
    expect(first.headers.get("ratelimit")).toMatch(/^"ip";r=59;t=\d+$/);
    for (let i = 0; i < 59; i++) await runOperation(call(), operation, request(operation.path, ip));
    const refused = await runOperation(call(), operation, request(operation.path, ip)).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).details).toEqual({ scope: "ip", limit: 60, windowMs: 60_000 });

    // Public calls are not failed authentications: the same client's bad token is still a 401, not a 429.
    const authenticated = operations.listWorkspaces;
    const failure = await runOperation(call(), authenticated, request(authenticated.path, ip, "Bearer nope")).catch(
      (error: unknown) => error,
    );
    expect((failure as ApiError).code).toBe("invalid_token");
  });

  it("routes a signed operation by its connection without bearer authentication: an unknown one is 404 before any region", async () => {
    const operation = operations.receiveMeetingNotesEvent;
    const path = "/integrations/meeting-notes/webhooks/conn_01unknown0000000000000000";
    const failure = await runOperation(call(), operation, {
      ...request(path, uniqueIp(), "Bearer not-checked"),
      method: "POST",
    }).catch((error: unknown) => error);
    expect((failure as ApiError).code).toBe("not_found");
  });

  it("refuses a bearer operation without a token", async () => {
    const operation = operations.listWorkspaces;
    const failure = await runOperation(call(), operation, request(operation.path, uniqueIp())).catch((error: unknown) => error);
    expect((failure as ApiError).code).toBe("unauthorized");
  });
});
