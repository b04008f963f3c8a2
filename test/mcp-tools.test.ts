import { catalogue, conditionalResourceOf, inputNaming, type Operation, openApiDocument } from "@crm/contracts";
import { describe, expect, it } from "vitest";
import { clients } from "./mcp";
import { cast } from "./stack";

/** The tools of the MCP endpoint, checked against the route catalogue they are generated from. */

interface ListedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: { type: string; properties?: Record<string, Schema>; required?: string[]; additionalProperties?: unknown };
  outputSchema?: Schema;
  annotations?: Record<string, unknown>;
}
type Schema = { [keyword: string]: unknown };

const toolOperations = (catalogue as readonly Operation[]).filter(
  (operation): operation is Operation & { mcpTool: string } => operation.auth === "bearer" && operation.mcpTool !== null,
);
const document = openApiDocument("http://127.0.0.1:8787");

/** The names a route's request takes: path and query parameters, and the JSON body's properties. */
function routeArguments(operation: Operation): string[] {
  const paths = document.paths as Record<string, Record<string, Schema>>;
  const entry = paths[operation.path]?.[operation.method] as {
    parameters?: { name: string; in: string }[];
    requestBody?: { content: Record<string, { schema: Schema }> };
  };
  // Headers are no arguments, the common ones (a `$ref` to a component) included.
  const parameters = (entry.parameters ?? [])
    .filter((parameter) => parameter.name !== undefined && parameter.in !== "header")
    .map((parameter) => parameter.name);
  let body = entry.requestBody?.content["application/json"]?.schema;
  if (typeof body?.$ref === "string") body = document.components?.schemas?.[body.$ref.split("/").pop() as string] as Schema;
  return [...parameters, ...Object.keys((body?.properties as Schema | undefined) ?? {})];
}

async function listedTools(connect: (typeof clients)[keyof typeof clients]): Promise<ListedTool[]> {
  const { alice } = await cast();
  const client = await connect(alice.apiKey);
  const { tools } = await client.listTools();
  await client.close();
  return tools as ListedTool[];
}

for (const [name, connect] of Object.entries(clients)) {
  describe(`tools/list, ${name}`, () => {
    it("negotiates its revision", async () => {
      const { alice } = await cast();
      const client = await connect(alice.apiKey);
      expect(client.protocolVersion()).toBe(name.endsWith("2026-07-28") ? "2026-07-28" : "2025-11-25");
      await client.close();
    });

    it("has one tool per bearer operation of the catalogue, named, titled and annotated from it, and auth_whoami", async () => {
      const tools = await listedTools(connect);
      expect(tools.map((tool) => tool.name).sort()).toEqual(
        [...toolOperations.map((operation) => operation.mcpTool), "auth_whoami"].sort(),
      );
      for (const operation of toolOperations) {
        const tool = tools.find((candidate) => candidate.name === operation.mcpTool) as ListedTool;
        const { title, readOnlyHint, destructiveHint, idempotentHint } = operation.mcpHints;
        expect(tool.title).toBe(title);
        expect(tool.annotations).toMatchObject({ title, readOnlyHint, destructiveHint, idempotentHint });
        expect(tool.description).toContain(`${operation.method.toUpperCase()} /api/v1${operation.path}`);
      }
      // The console's key routes take a session, never a bearer token: no tool.
      expect(tools.some((tool) => tool.name.startsWith("api_keys"))).toBe(false);
    });

    it("takes exactly the route's arguments, plus an idempotency key on writes, ifMatch on conditional writes and sendMode on sending tools", async () => {
      const tools = await listedTools(connect);
      for (const operation of toolOperations) {
        const { inputSchema } = tools.find((tool) => tool.name === operation.mcpTool) as ListedTool;
        const writes = operation.method !== "get" && !operation.mcpHints.readOnlyHint;
        // A creation answers an ETag but has no earlier version to compare.
        const conditional =
          operation.method !== "get" && operation.method !== "post" && conditionalResourceOf(operation, catalogue) !== null;
        const own = [
          ...(writes ? ["idempotencyKey"] : []),
          ...(conditional ? ["ifMatch"] : []),
          ...(operation.mcpSendMode ? ["sendMode"] : []),
        ];
        expect(Object.keys(inputSchema.properties ?? {}).sort(), operation.mcpTool).toEqual(
          [...routeArguments(operation), ...own].sort(),
        );
        expect(inputSchema.additionalProperties).toBe(false);
      }
    });
  });
}

describe("invalid inputs as each surface names them", () => {
  it("REST names each argument by the part of the request the document puts it in; a tool names the argument itself", () => {
    const paths = document.paths as Record<string, Record<string, { parameters?: { name: string; in: string }[] }>>;
    for (const operation of catalogue as readonly Operation[]) {
      const rest = inputNaming("api", operation);
      const parameters = (paths[operation.path]?.[operation.method]?.parameters ?? []).filter((parameter) => parameter.name);
      for (const name of routeArguments(operation)) {
        const part = parameters.find((parameter) => parameter.name === name)?.in ?? "body";
        expect(rest({ path: `${name}.0`, message: "" }), operation.operationId).toBe(`${part}.${name}.0`);
        expect(inputNaming("mcp", operation)({ path: `${name}.0`, message: "" })).toBe(`${name}.0`);
      }
      // What no operation declares (a stored draft's `draft.to`) is no input of the request: named as it is.
      expect(rest({ path: "draft.to", message: "" })).toBe("draft.to");
      expect(rest({ path: "", in: "body", message: "" })).toBe("body");
    }
  });
});

describe("tool schemas", () => {
  it("are typed as a caller means the values: query integers are integers, required as the route requires", async () => {
    const tools = await listedTools(clients["v2 client at 2026-07-28"]);
    const input = (toolName: string) => (tools.find((tool) => tool.name === toolName) as ListedTool).inputSchema;
    expect(input("records_list").properties?.limit).toMatchObject({ type: "integer", minimum: 1, maximum: 100, default: 50 });
    expect(input("records_list").required).toEqual(["objectTypeId"]);
    expect(input("records_update").required?.sort()).toEqual(["fields", "recordId"]);
    expect(input("records_create").required?.sort()).toEqual(["fields", "idempotencyKey", "objectTypeId"]);
    expect(input("records_update").required).not.toContain("idempotencyKey");
    expect(input("inbox_messages_send").properties?.sendMode).toMatchObject({ type: "string", enum: ["draft", "send"] });
    expect(input("records_get").properties).not.toHaveProperty("idempotencyKey");
    expect(input("records_query").properties).not.toHaveProperty("idempotencyKey");
  });

  it("describe each result: a list tool's page, a sending tool's preview, nothing for an attachment's bytes", async () => {
    const tools = await listedTools(clients["v2 client at 2026-07-28"]);
    const output = (toolName: string) => (tools.find((tool) => tool.name === toolName) as ListedTool).outputSchema;
    expect(output("records_list")).toMatchObject({ type: "object", required: ["data", "pagination"] });
    const send = JSON.stringify(output("inbox_messages_send"));
    for (const member of ["confirmationRequired", "draft", "message"]) expect(send).toContain(`"${member}"`);
    expect(output("inbox_attachments_get")).toBeUndefined();
    expect(output("auth_whoami")).toMatchObject({ type: "object" });
  });

  /**
   * The portability rules of the MCP Inspector's `--strict` check: every schema validates something
   * (no bare `{}` or `true`), one `type` per schema (nullable values as `anyOf`), and references only
   * into the document's own `$defs`. A route added with an untyped value fails here.
   */
  it("are portable to every client: typed, one type per schema, local references", async () => {
    const tools = await listedTools(clients["v2 client at 2026-07-28"]);
    const validating = /^(type|enum|const|anyOf|oneOf|allOf|not|\$ref|properties|items|required|additionalProperties)$/;
    const findings: string[] = [];
    const walk = (schema: unknown, path: string) => {
      if (typeof schema === "boolean") {
        if (!/\.additionalProperties$/.test(path)) findings.push(`${path}: a boolean schema`);
        return;
      }
      const node = schema as Schema;
      if (Array.isArray(node.type)) findings.push(`${path}: type ${JSON.stringify(node.type)}`);
      if (!Object.keys(node).some((keyword) => validating.test(keyword))) findings.push(`${path}: validates nothing`);
      if (typeof node.$ref === "string" && !node.$ref.startsWith("#/$defs/")) findings.push(`${path}: $ref ${node.$ref}`);
      for (const keyword of ["properties", "$defs"]) {
        for (const [name, child] of Object.entries((node[keyword] as Schema | undefined) ?? {}))
          walk(child, `${path}.${keyword}.${name}`);
      }
      for (const keyword of ["anyOf", "oneOf", "allOf"]) {
        for (const [index, child] of ((node[keyword] as unknown[] | undefined) ?? []).entries())
          walk(child, `${path}.${keyword}[${index}]`);
      }
      for (const keyword of ["items", "additionalProperties", "not"])
        if (keyword in node) walk(node[keyword], `${path}.${keyword}`);
    };
    for (const tool of tools) {
      walk(tool.inputSchema, `${tool.name}.inputSchema`);
      if (tool.outputSchema) walk(tool.outputSchema, `${tool.name}.outputSchema`);
    }
    expect(findings).toEqual([]);
    // Record field values are untyped in the route (`z.unknown()`): any JSON value, spelled with types.
    const create = tools.find((tool) => tool.name === "records_create") as ListedTool;
    const fields = (create.inputSchema.properties as Record<string, Schema>).fields as Schema;
    expect(fields.additionalProperties).toEqual({
      anyOf: ["string", "number", "boolean", "null", "array", "object"].map((type) => ({ type })),
    });
  });
});
