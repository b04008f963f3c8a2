import { illFormedStringPaths, openApiDocument } from "@crm/contracts";
import { describe, expect, it } from "vitest";
import { createOrganization } from "./fixtures";
import { mailWorkspace } from "./mail";
import { gatewayFetch, mcpUrl } from "./mcp";
import { call } from "./stack";

/** Bodies as clients really send them (DESIGN.md section 2): empty ones with a JSON type, and deeply nested ones. */

const errorOf = async (response: Response) =>
  ((await response.json()) as { error: { code: string; details?: { path: string; message: string }[] } }).error;

const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;

describe("a JSON body nested at any depth", () => {
  it("is 400 on every JSON write, never 500, up to the body limit", async () => {
    const { key, workspaceIds } = await createOrganization({ workspaceCount: 1 });
    for (const depth of [65, 2_500, 10_000, 500_000]) {
      const records = await call("/records", {
        method: "POST",
        key,
        headers: { "content-type": "application/json" },
        body: `{"objectTypeId":"obj_000000000000","fields":{"name":${nested(depth)}}}`,
      });
      expect(records.status, `depth ${depth}`).toBe(400);
      expect((await errorOf(records)).details).toEqual([{ path: "body", message: "JSON nested deeper than 64 levels" }]);
      const webhook = await call("/webhooks", {
        method: "POST",
        key,
        headers: { "content-type": "application/json" },
        body: `{"workspaceId":"${workspaceIds[0]}","url":${nested(depth)}}`,
      });
      expect(webhook.status, `depth ${depth}`).toBe(400);
    }
    // Brackets inside strings are text, not nesting.
    const inString = await call("/records", {
      method: "POST",
      key,
      headers: { "content-type": "application/json" },
      body: `{"objectTypeId":"obj_000000000000","fields":{"name":"${nested(1_000)}"}}`,
    });
    expect(inString.status).toBe(404);
  });

  it("is an error result on MCP, never a 500", async () => {
    const { key } = await createOrganization({ workspaceCount: 1 });
    const deep = JSON.parse(`{"a":${"[".repeat(3_000)}${"]".repeat(3_000)}}`);
    const response = await gatewayFetch(mcpUrl, {
      method: "POST",
      headers: {
        authorization: `Bearer ${key}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-11-25",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: {
          name: "records_create",
          arguments: { objectTypeId: "obj_000000000000", fields: deep, idempotencyKey: "deep-1" },
        },
      }),
    });
    expect(response.status).toBeLessThan(500);
    expect(await response.text()).not.toContain("internal_error");
  });
});

describe("the walk over a body's strings", () => {
  it("is iterative: any depth is walked, ill-formed strings found in document order", () => {
    expect(illFormedStringPaths(JSON.parse(nested(200_000)), "body")).toEqual([]);
    const deep = JSON.parse(`${"[".repeat(50_000)}"\\ud800"${"]".repeat(50_000)}`);
    expect(illFormedStringPaths(deep, "body")).toEqual([`body${".0".repeat(50_000)}`]);
    expect(illFormedStringPaths({ a: "\ud800", "\udc00": { b: "\ud800" } }, "body")).toEqual([
      "body.a",
      "body.\ufffd",
      "body.\udc00.b",
    ]);
  });
});

describe("no body with Content-Type: application/json", () => {
  it("is {} on a DELETE, a secret rotation and a draft's sending", async () => {
    const workspace = await mailWorkspace();
    const json = { "content-type": "application/json" };
    const connection = (await (
      await call("/integrations/connections", {
        method: "POST",
        key: workspace.key,
        json: { workspaceId: workspace.workspaceId, provider: "meeting_notes", name: "Notetaker" },
      })
    ).json()) as { connection: { id: string } };
    const rotated = await call(`/integrations/connections/${connection.connection.id}/rotate-secret`, {
      method: "POST",
      key: workspace.key,
      headers: json,
    });
    expect(rotated.status).toBe(200);
    const deleted = await call(`/integrations/connections/${connection.connection.id}`, {
      method: "DELETE",
      key: workspace.key,
      headers: json,
    });
    expect(deleted.status).toBe(200);

    const draft = (await (
      await call("/inbox/drafts", {
        method: "POST",
        key: workspace.key,
        json: {
          workspaceId: workspace.workspaceId,
          mailbox: workspace.mailbox,
          to: ["ada@customer.example"],
          subject: "Hello",
          text: "Hi Ada",
        },
      })
    ).json()) as { draft: { id: string } };
    const sent = await call(`/inbox/drafts/${draft.draft.id}/send`, { method: "POST", key: workspace.key, headers: json });
    expect(sent.status).toBe(201);
  });
});

describe("bodies as the document shows them", () => {
  it("sends the documented compose example, and saves a reply draft with html only", async () => {
    const workspace = await mailWorkspace();
    const schemas = (
      openApiDocument("http://127.0.0.1:8787") as unknown as {
        components: { schemas: Record<string, { example: Record<string, unknown> }> };
      }
    ).components.schemas;
    const example = schemas.ComposeConversation?.example as Record<string, unknown>;
    const composed = await call("/inbox/conversations", {
      method: "POST",
      key: workspace.key,
      json: { ...example, workspaceId: workspace.workspaceId, mailbox: workspace.mailbox },
    });
    expect(composed.status, await composed.clone().text()).toBe(201);
    const { conversation } = (await composed.json()) as { conversation: { id: string } };
    const draft = await call(`/inbox/conversations/${conversation.id}/draft`, {
      method: "PUT",
      key: workspace.key,
      json: { html: "<p>Thanks, <b>Ada</b></p>" },
    });
    expect(draft.status, await draft.clone().text()).toBe(200);
    expect(((await draft.json()) as { draft: { text: string } }).draft.text).toContain("Thanks, Ada");
    const empty = await call(`/inbox/conversations/${conversation.id}/draft`, { method: "PUT", key: workspace.key, json: {} });
    expect(empty.status).toBe(400);
  });
});
