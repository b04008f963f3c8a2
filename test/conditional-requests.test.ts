import { catalogue, conditionalReadOf, type Operation, openApiDocument } from "@crm/contracts";
import { describe, expect, it } from "vitest";
import { errorOf, expectStatus } from "./crm";
import { addPerson, inboxWorkspace } from "./inbox";
import { rawToolCall, structured, toolError } from "./mcp";
import { call } from "./stack";

/**
 * Conditional requests (DESIGN.md section 2): single-resource GETs answer a strong ETag and 304 for
 * If-None-Match; PATCH, PUT and DELETE take If-Match, 412 with nothing written when it is stale.
 */

type Json = Record<string, unknown>;

async function aTask() {
  const workspace = await inboxWorkspace();
  const personId = await addPerson(workspace.key, workspace.workspaceId, "Pat Person", "pat@customer.example");
  const { task } = await expectStatus<{ task: Json }>(201, `/records/${personId}/tasks`, {
    method: "POST",
    key: workspace.key,
    json: { title: "Call back" },
  });
  return { key: workspace.key, path: `/tasks/${task.id}`, taskId: task.id as string };
}

describe("ETag and If-None-Match", () => {
  it("answers a strong ETag on a single-resource GET, and 304 without a body while it is current", async () => {
    const { key, path } = await aTask();
    const first = await call(path, { key });
    const etag = first.headers.get("etag") as string;
    expect(etag).toMatch(/^"[\w-]{43}"$/);
    expect((await call(path, { key })).headers.get("etag")).toBe(etag);
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, "*"]) {
      const again = await call(path, { key, headers: { "if-none-match": ifNoneMatch } });
      expect(again.status, ifNoneMatch).toBe(304);
      expect(await again.text()).toBe("");
      expect(again.headers.get("etag")).toBe(etag);
    }
    expect((await call(path, { key, headers: { "if-none-match": '"other"' } })).status).toBe(200);
  });

  it("gives the resource after a PATCH the ETag its GET then answers, and a new one whenever it changes", async () => {
    const { key, path } = await aTask();
    const before = (await call(path, { key })).headers.get("etag");
    const patched = await call(path, { method: "PATCH", key, json: { title: "Call back today" } });
    expect(patched.status).toBe(200);
    const after = patched.headers.get("etag");
    expect(after).not.toBe(before);
    expect((await call(path, { key })).headers.get("etag")).toBe(after);
    expect((await call(path, { key, headers: { "if-none-match": before as string } })).status).toBe(200);
  });
});

describe("If-Match", () => {
  it("writes while it names the current ETag, and answers 412 with nothing written once it is stale", async () => {
    const { key, path } = await aTask();
    const etag = (await call(path, { key })).headers.get("etag") as string;
    const first = await call(path, { method: "PATCH", key, json: { title: "First" }, headers: { "if-match": etag } });
    expect(first.status).toBe(200);
    const stale = await call(path, { method: "PATCH", key, json: { title: "Second" }, headers: { "if-match": etag } });
    expect(stale.status).toBe(412);
    expect((await errorOf(stale)).code).toBe("precondition_failed");
    expect(((await (await call(path, { key })).json()) as { task: Json }).task.title).toBe("First");
    // A weak tag never matches for a write; `*` matches whatever is current.
    const current = first.headers.get("etag") as string;
    expect(
      (await call(path, { method: "PATCH", key, json: { title: "W" }, headers: { "if-match": `W/${current}` } })).status,
    ).toBe(412);
    expect((await call(path, { method: "PATCH", key, json: { title: "Any" }, headers: { "if-match": "*" } })).status).toBe(200);
  });

  it("refuses a DELETE with a stale ETag, the resource kept, and deletes with the current one", async () => {
    const { key, path } = await aTask();
    const etag = (await call(path, { key })).headers.get("etag") as string;
    await expectStatus(200, path, { method: "PATCH", key, json: { status: "done" } });
    expect((await call(path, { method: "DELETE", key, headers: { "if-match": etag } })).status).toBe(412);
    const current = (await call(path, { key })).headers.get("etag") as string;
    expect((await call(path, { method: "DELETE", key, headers: { "if-match": current } })).status).toBe(200);
    expect((await call(path, { key })).status).toBe(404);
  });

  it("of two writers holding the same ETag, lets one write and refuses the other", async () => {
    const { key, path } = await aTask();
    const etag = (await call(path, { key })).headers.get("etag") as string;
    await expectStatus(200, path, { method: "PATCH", key, json: { title: "Mine" }, headers: { "if-match": etag } });
    expect((await call(path, { method: "PATCH", key, json: { status: "done" }, headers: { "if-match": etag } })).status).toBe(
      412,
    );
  });
});

describe("If-Match under concurrency", () => {
  it("lets exactly one of eight concurrent PATCHes holding the same ETag write, the others 412", async () => {
    const { key, path } = await aTask();
    const etag = (await call(path, { key })).headers.get("etag") as string;
    const changes = [
      { title: "One" },
      { status: "done" },
      { dueAt: 1_900_000_000_000 },
      { descriptionHtml: "<p>Four</p>" },
      { title: "Five" },
      { status: "in_progress" },
      { dueAt: 1_900_000_000_001 },
      { descriptionHtml: "<p>Eight</p>" },
    ];
    const responses = await Promise.all(
      changes.map((json) => call(path, { method: "PATCH", key, json, headers: { "if-match": etag } })),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([200, 412, 412, 412, 412, 412, 412, 412]);
  });
});

describe("the MCP update tools", () => {
  it("take ifMatch, and hand the ETag back in _meta", async () => {
    const { key, taskId } = await aTask();
    const read = await rawToolCall(key, "tasks_get", { taskId });
    const etag = (read as { _meta?: { etag?: string } })._meta?.etag as string;
    expect(etag).toMatch(/^"[\w-]{43}"$/);
    const updated = await rawToolCall(key, "tasks_update", { taskId, title: "From the agent", ifMatch: etag });
    expect(structured<{ task: Json }>(updated).task.title).toBe("From the agent");
    const stale = await rawToolCall(key, "tasks_update", { taskId, title: "Too late", ifMatch: etag });
    expect(toolError(stale).error.code).toBe("precondition_failed");
  });
});

describe("the catalogue", () => {
  const document = openApiDocument("http://127.0.0.1:8787");
  type Entry = { parameters?: { name: string }[]; responses: Json };
  const paths = document.paths as Record<string, Record<string, Entry>>;
  const entry = (operation: Operation) => paths[operation.path]?.[operation.method] as Entry;

  it("declares If-None-Match and 304 on every single-resource GET, If-Match and 412 on every write at its path", () => {
    const conditional = catalogue.filter((operation) => conditionalReadOf(operation, catalogue));
    expect(conditional.map((operation) => operation.operationId)).toEqual(
      expect.arrayContaining(["getTask", "updateTask", "deleteTask", "getWebhook", "updateWebhook", "putConversationDraft"]),
    );
    for (const operation of conditional) {
      const { parameters = [], responses } = entry(operation);
      const names = parameters.map((parameter) => parameter.name);
      if (operation.method === "get") {
        expect(names, operation.operationId).toContain("If-None-Match");
        expect(Object.keys(responses), operation.operationId).toContain("304");
      } else {
        expect(names, operation.operationId).toContain("If-Match");
        expect(Object.keys(responses), operation.operationId).toContain("412");
      }
    }
  });
});
