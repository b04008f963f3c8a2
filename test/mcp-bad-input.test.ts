import type { ErrorBody } from "@crm/contracts";
import { describe, expect, it } from "vitest";
import { inboxWorkspace } from "./inbox";
import { gatewayFetch, jsonRpcMessage, rawMcp, rawToolCall, resultText, structured, toolError } from "./mcp";
import { call, cast } from "./stack";

/**
 * What no well-behaved client sends, answered as the MCP specification says: transport refusals as
 * HTTP statuses, protocol errors as JSON-RPC errors, bad arguments as tool results with isError.
 * Never a 500, and nothing written.
 */

const v2025 = { "mcp-protocol-version": "2025-11-25" };
const message = (method: string, params?: unknown, id: number | string = 1) =>
  JSON.stringify({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });

/** A fresh workspace's people type, and how many people it holds (read through REST). */
async function people() {
  const workspace = await inboxWorkspace();
  const { objects } = (await (
    await call(`/crm/objects?workspaceId=${workspace.workspaceId}`, { key: workspace.key })
  ).json()) as {
    objects: { id: string; slug: string }[];
  };
  const peopleId = objects.find((object) => object.slug === "people")?.id as string;
  const count = async () =>
    ((await (await call(`/records?objectTypeId=${peopleId}&limit=100`, { key: workspace.key })).json()) as { data: unknown[] })
      .data.length;
  return { key: workspace.key, peopleId, count };
}

describe("protocol errors", () => {
  it("malformed JSON: a JSON-RPC parse error (400)", async () => {
    const { alice } = await cast();
    const response = await rawMcp('{"jsonrpc": "2.0", "id": 1, "method": ', { token: alice.apiKey, headers: v2025 });
    expect(response.status).toBe(400);
    expect((await jsonRpcMessage(response)).error?.code).toBe(-32700);
  });

  it("a body that is JSON but not JSON-RPC: invalid request (400)", async () => {
    const { alice } = await cast();
    const response = await rawMcp(JSON.stringify({ id: 1, method: "tools/list" }), { token: alice.apiKey, headers: v2025 });
    expect(response.status).toBe(400);
    expect((await jsonRpcMessage(response)).error?.code).toBe(-32600);
  });

  it("a batch array: invalid request (400), none of its calls run", async () => {
    const { key, peopleId, count } = await people();
    const create = {
      name: "records_create",
      arguments: { objectTypeId: peopleId, fields: { name: "Batched" }, idempotencyKey: crypto.randomUUID() },
    };
    const response = await rawMcp(` [${message("tools/call", create, 1)}, ${message("tools/list", undefined, 2)}]`, {
      token: key,
      headers: v2025,
    });
    expect(response.status).toBe(400);
    expect((await jsonRpcMessage(response)).error?.code).toBe(-32600);
    expect(await count()).toBe(0);
  });

  it("an unknown method: method not found", async () => {
    const { alice } = await cast();
    const response = await rawMcp(message("records/delete_everything"), { token: alice.apiKey, headers: v2025 });
    expect((await jsonRpcMessage(response)).error?.code).toBe(-32601);
  });

  it("an unknown tool: a JSON-RPC error, not a tool result", async () => {
    const { alice } = await cast();
    const response = await rawMcp(message("tools/call", { name: "records_drop", arguments: {} }), {
      token: alice.apiKey,
      headers: v2025,
    });
    const reply = await jsonRpcMessage(response);
    expect(reply.result).toBeUndefined();
    expect(reply.error).toMatchObject({ code: -32602, message: "Tool records_drop not found" });
  });
});

describe("bad arguments: tool results with isError, nothing written", () => {
  it("wrong types, missing required arguments, unknown arguments, a bad idempotency key", async () => {
    const { key, peopleId, count } = await people();
    const idempotencyKey = crypto.randomUUID();
    const cases: [string, Record<string, unknown>, string][] = [
      ["records_create", { objectTypeId: peopleId, fields: "Ada", idempotencyKey }, "fields"],
      ["records_create", { objectTypeId: 42, fields: { name: "Ada" }, idempotencyKey }, "objectTypeId"],
      ["records_create", { fields: { name: "Ada" }, idempotencyKey }, "objectTypeId"],
      ["records_create", { objectTypeId: peopleId, fields: { name: "Ada" }, idempotencyKey, isSystem: true }, "isSystem"],
      ["records_create", { objectTypeId: peopleId, fields: { name: "Ada" }, idempotencyKey: "two\nlines" }, "idempotencyKey"],
      ["workspaces_list", { limit: "ten" }, "limit"],
      ["workspaces_list", { limit: 0 }, "limit"],
      ["records_get", {}, "recordId"],
    ];
    for (const [tool, args, named] of cases) {
      const result = await rawToolCall(key, tool, args);
      expect(result.isError, `${tool} ${JSON.stringify(args)}`).toBe(true);
      expect(resultText(result)).toContain(named);
    }
    expect(await count()).toBe(0);
  });

  it("arguments the schema admits but the route refuses: the route's 400 body", async () => {
    const { key, peopleId, count } = await people();
    const result = await rawToolCall(key, "records_create", {
      objectTypeId: peopleId,
      fields: { name: "Ada", no_such_field: 1 },
      idempotencyKey: crypto.randomUUID(),
    });
    expect(result.isError).toBe(true);
    const { error } = JSON.parse(resultText(result)) as { error: { code: string; details: { path: string }[] } };
    expect(error.code).toBe("invalid_request");
    // The argument as the tool takes it: no `body.` of the REST request the tool makes.
    expect(error.details.map((detail) => detail.path)).toContain("fields.no_such_field");
    expect(error.details.every((detail) => !/^(body|query|path)\./.test(detail.path))).toBe(true);
    expect(await count()).toBe(0);
  });

  it("domain errors name the tool's arguments where REST names the request part, a batch's items and its matchingField too", async () => {
    const { key, peopleId, count } = await people();
    const paths = (details: { path: string }[] | undefined) => details?.map((detail) => detail.path);
    const create = { objectTypeId: peopleId, operation: "create", records: [{ fields: { name: "Ada", no_such_field: 1 } }] };
    const viaTool = await rawToolCall(key, "records_batch", { ...create, idempotencyKey: crypto.randomUUID() });
    const toolItems = structured<{ results: { error?: { details?: { path: string }[] } }[] }>(viaTool).results;
    expect(paths(toolItems[0]?.error?.details)).toEqual(["fields.no_such_field"]);
    const viaRest = await call("/records/batch", { method: "POST", key, json: create });
    const restItems = ((await viaRest.json()) as { results: { error?: { details?: { path: string }[] } }[] }).results;
    expect(paths(restItems[0]?.error?.details)).toEqual(["body.fields.no_such_field"]);

    // `name` is not unique: refused whole, naming the batch's own `matchingField` (its body's, not a query's).
    const upsert = { objectTypeId: peopleId, operation: "upsert", matchingField: "name", records: [{ fields: { name: "Ada" } }] };
    const toolUpsert = await rawToolCall(key, "records_batch", { ...upsert, idempotencyKey: crypto.randomUUID() });
    expect(paths(toolError(toolUpsert).error.details as { path: string }[])).toEqual(["matchingField"]);
    const restUpsert = await call("/records/batch", { method: "POST", key, json: upsert });
    expect(paths(((await restUpsert.json()) as ErrorBody).error.details as { path: string }[])).toEqual(["body.matchingField"]);
    expect(await count()).toBe(0);
  });
});

describe("transport refusals", () => {
  it("an oversized request: 413 before it is parsed or its credential looked up", async () => {
    const body = message("tools/list", { padding: "a".repeat(1024 * 1024) });
    const response = await rawMcp(body, { token: "not-even-a-key", headers: v2025 });
    expect(response.status).toBe(413);
    expect((await jsonRpcMessage(response)).error?.code).toBe(-32000);
  });

  it("a foreign Origin or Host: 403 (DNS-rebinding protection)", async () => {
    const { alice } = await cast();
    const foreignOrigin = await rawMcp(message("tools/list"), {
      token: alice.apiKey,
      headers: { ...v2025, origin: "https://evil.example" },
    });
    expect(foreignOrigin.status).toBe(403);
    const foreignHost = await gatewayFetch("http://evil.example:8787/mcp", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${alice.apiKey}`,
      },
      body: message("tools/list"),
    });
    expect(foreignHost.status).toBe(403);
    // The stack's own origin, as a browser page of it would send it, is welcome.
    const ownOrigin = await rawMcp(message("tools/list"), {
      token: alice.apiKey,
      headers: { ...v2025, origin: "http://127.0.0.1:8787" },
    });
    expect(ownOrigin.status).toBe(200);
    // Another port of the same host is another origin: another local server, perhaps a hostile page's.
    for (const origin of ["http://127.0.0.1:3000", "http://127.0.0.1"]) {
      const otherPort = await rawMcp(message("tools/list"), { token: alice.apiKey, headers: { ...v2025, origin } });
      expect(otherPort.status, origin).toBe(403);
    }
  });

  it("GET and DELETE: 405 (stateless: no stream, no session), a body of another type: 415", async () => {
    const { alice } = await cast();
    for (const method of ["GET", "DELETE"]) {
      const response = await rawMcp("", { token: alice.apiKey, method });
      expect(response.status).toBe(405);
      expect(response.headers.get("allow")).toBe("POST");
    }
    const text = await rawMcp(message("tools/list"), {
      token: alice.apiKey,
      headers: { ...v2025, "content-type": "text/plain" },
    });
    expect(text.status).toBe(415);
  });

  it("never answers 500 to any of it", async () => {
    const { alice } = await cast();
    const bodies = [
      "",
      "null",
      "[]",
      "42",
      '"tools/list"',
      "{}",
      message("tools/call", null),
      message("tools/call", { name: 7 }),
    ];
    for (const body of bodies) {
      const response = await rawMcp(body, { token: alice.apiKey, headers: v2025 });
      expect(response.status, body).toBeLessThan(500);
    }
  });
});
