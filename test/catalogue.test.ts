import { catalogue, costUnits, defineOperation, operations } from "@crm/contracts";
import { describe, expect, it } from "vitest";
import { call } from "./stack";

type DocumentOperation = { "x-mcp-tool": string; "x-mcp-hints": unknown; security: unknown[] };

describe("the catalogue's auth kind and MCP hints", () => {
  it("gives every operation a bearer auth but the console's /api-keys routes, the public unsubscribe page, integrations catalogue and change log, and the signed inbound webhooks, and hints from its method", () => {
    const signed = ["receiveMeetingNotesEvent", "receiveCallingEvent"];
    const authOf = (operation: (typeof catalogue)[number]) => {
      if (operation.path.startsWith("/api-keys")) return "session";
      if (operation.path === "/email/unsubscribe" || operation.path.startsWith("/public/") || operation.path === "/changelog")
        return "none";
      return signed.includes(operation.operationId) ? "signature" : "bearer";
    };
    for (const operation of catalogue) {
      expect(operation.auth, operation.operationId).toBe(authOf(operation));
      expect(operation.mcpHints.title).toBe(operation.route.summary);
      const { readOnlyHint, destructiveHint, idempotentHint } = operation.mcpHints;
      if (operation.method === "get") expect([readOnlyHint, destructiveHint, idempotentHint]).toEqual([true, false, true]);
      if (operation.method === "delete") expect([readOnlyHint, destructiveHint, idempotentHint]).toEqual([false, true, true]);
      if (operation.method === "put") expect(idempotentHint).toBe(true);
      if (operation.method === "patch") expect([readOnlyHint, destructiveHint, idempotentHint]).toEqual([false, false, false]);
    }
    // A POST that only reads, and POSTs that set an order: overrides of the method's defaults.
    expect(operations.queryRecords.mcpHints).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true });
    expect(operations.reorderFields.mcpHints.idempotentHint).toBe(true);
    // Sending mail reaches people outside the organization: the open-world tools, and the only ones.
    const openWorld = catalogue.filter((operation) => operation.mcpHints.openWorldHint).map((operation) => operation.operationId);
    expect(openWorld.sort()).toEqual(["composeConversation", "sendComposeDraft", "sendMessage"]);
    expect(operations.createRecord.mcpHints).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
    });
  });

  it("publishes the MCP tool and its hints in the OpenAPI document", async () => {
    const document = (await (await call("/openapi.json")).json()) as {
      paths: Record<string, Record<string, DocumentOperation>>;
    };
    for (const operation of catalogue) {
      const entry = document.paths[operation.path]?.[operation.method];
      if (operation.mcpTool === null) {
        expect(entry && "x-mcp-tool" in entry).toBe(false);
        continue;
      }
      expect(entry?.["x-mcp-tool"]).toBe(operation.mcpTool);
      expect(entry?.["x-mcp-hints"]).toEqual(operation.mcpHints);
    }
  });

  it("makes no MCP tool of a session operation: MCP clients hold bearer tokens (DESIGN.md section 11)", () => {
    const sessionOperations = catalogue.filter((operation) => operation.auth === "session");
    expect(sessionOperations.map((operation) => operation.operationId).sort()).toEqual(
      ["createApiKey", "getApiKey", "listApiKeys", "replaceApiKey", "revokeApiKey"].sort(),
    );
    for (const operation of sessionOperations) expect(operation.mcpTool).toBeNull();
  });

  it("makes a tool of bearer operations only: public and signed routes have none, in the document too", () => {
    for (const operation of catalogue) {
      expect(operation.mcpTool === null, operation.operationId).toBe(operation.auth !== "bearer");
    }
  });

  it("refuses an operation without a bearer credential that a region would serve: it has no region to go to", () => {
    const spec = {
      operationId: "publicThing",
      tag: "Usage",
      summary: "A public operation",
      description: "An operation without a credential, for the test.",
      scope: null,
      costUnits: costUnits.free,
      mcpTool: null,
      auth: "none",
      method: "get",
      path: "/public/thing",
      responses: {},
    } as const;
    expect(() => defineOperation(spec)).toThrow(/must be served by the gateway/);
    const served = defineOperation({ ...spec, servedBy: "gateway" });
    expect(served.route.security).toEqual([]);
  });
});
