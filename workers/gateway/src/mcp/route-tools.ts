import {
  catalogue,
  changesData,
  type JsonSchema,
  type Operation,
  operationArguments,
  operationResult,
  takesIfMatch,
} from "@crm/contracts";
import { fromJsonSchema, type StandardSchemaWithJSON, type ToolAnnotations } from "@modelcontextprotocol/server";
import { openApiDocumentFor } from "../openapi";

/**
 * The MCP tools of the route catalogue: one per operation a bearer token may call (DESIGN.md
 * section 11), named, typed and annotated from the catalogue and the OpenAPI document, so a route
 * added later is a tool with no code here.
 */

export type ToolArguments = Record<string, unknown>;

export interface RouteTool {
  name: string;
  operation: Operation;
  title: string;
  description: string;
  annotations: ToolAnnotations;
  inputSchema: StandardSchemaWithJSON<ToolArguments>;
  /** Absent when the operation answers something other than JSON (an attachment's bytes). */
  outputSchema: StandardSchemaWithJSON | undefined;
  /** The argument names of the operation's path, query and JSON body; the rest are the tool's own. */
  placement: { path: string[]; query: string[]; body: string[] };
  /**
   * Whether the input schema mentions `x-mcp-header` (an argument the client also sends as a header,
   * which the SDK checks against the request's headers): such a call is left to the SDK.
   */
  bindsHeaders: boolean;
}

/** Printable ASCII without spaces: it travels as the `Idempotency-Key` header, which takes 1–200 characters. */
const idempotencyKeyArgument = {
  type: "string",
  minLength: 1,
  maxLength: 200,
  pattern: "^[!-~]+$",
  description:
    "The request's Idempotency-Key: calling again with the same key and arguments within 24 hours returns the first result and changes nothing again; the same key with other arguments is refused.",
};

/** An entity tag travels as the `If-Match` header. */
const ifMatchArgument = {
  type: "string",
  minLength: 1,
  maxLength: 2048,
  pattern: "^[!-~][ -~]*$",
  description:
    "The resource's ETag as you read it (`_meta.etag` of the read tool's result, or of this tool's last result): when the resource changed since, the call fails with precondition_failed and nothing is written.",
};

export const sendModes = ["draft", "send"] as const;

const sendModeArgument = (draftTool: string, sendsSavedDraft: boolean) => ({
  type: "string",
  enum: sendModes,
  description: sendsSavedDraft
    ? `Omitted: a preview of the saved draft as it would be sent, nothing sent (confirmationRequired). \`send\`: sends it now. \`draft\`: leaves it saved as it is, nothing sent (answers as ${draftTool}).`
    : `Omitted: a preview of the message, nothing sent (confirmationRequired). \`send\`: sends it now. \`draft\`: saves it as your draft instead, nothing sent (as ${draftTool}).`,
});

/** What a sending tool answers when called without `sendMode`: the message it would send, and nothing done. */
const previewResult: JsonSchema = {
  type: "object",
  properties: {
    sent: { const: false },
    confirmationRequired: { const: true },
    preview: { type: "object", additionalProperties: true, description: "The arguments the message would be sent with" },
  },
  required: ["sent", "confirmationRequired", "preview"],
  additionalProperties: false,
};

/** One object schema that accepts any of the given results, their `$defs` gathered at the root. */
function anyOfResults(results: JsonSchema[]): JsonSchema {
  const defs: Record<string, unknown> = {};
  const branches = results.map(({ $defs, ...branch }) => {
    Object.assign(defs, $defs);
    return branch;
  });
  return { type: "object", anyOf: branches, ...(Object.keys(defs).length > 0 ? { $defs: defs } : {}) };
}

/** Whether a sending tool sends a draft already saved: its `draft` mode is then the draft's read. */
const sendsSavedDraft = (draftTool: string) =>
  catalogue.some((operation) => operation.mcpTool === draftTool && operation.method === "get");

function routeTool(origin: string, operation: Operation & { mcpTool: string }, draftResult: (name: string) => JsonSchema | null) {
  const document = openApiDocumentFor(origin);
  const writes = changesData(operation);
  const conditional = takesIfMatch(operation, catalogue);
  const sendMode = operation.mcpSendMode;
  const extra = {
    properties: {
      ...(writes ? { idempotencyKey: idempotencyKeyArgument } : {}),
      ...(conditional ? { ifMatch: ifMatchArgument } : {}),
      ...(sendMode ? { sendMode: sendModeArgument(sendMode.draftTool, sendsSavedDraft(sendMode.draftTool)) } : {}),
    },
    required: operation.mcpRequiresIdempotencyKey ? ["idempotencyKey"] : [],
  };
  const { schema, path, query, body } = operationArguments(document, operation, extra);
  const result = operationResult(document, operation);
  const draft = sendMode ? draftResult(sendMode.draftTool) : null;
  const output = result && sendMode ? anyOfResults([result, ...(draft ? [draft] : []), previewResult]) : result;
  const { title, readOnlyHint, destructiveHint, idempotentHint, openWorldHint } = operation.mcpHints;
  return {
    name: operation.mcpTool,
    operation,
    title,
    description: `${operation.route.description ?? title} (${operation.method.toUpperCase()} /api/v1${operation.path})`,
    annotations: { title, readOnlyHint, destructiveHint, idempotentHint, openWorldHint },
    inputSchema: fromJsonSchema<ToolArguments>(schema),
    outputSchema: output ? fromJsonSchema(output) : undefined,
    placement: { path, query, body },
    bindsHeaders: JSON.stringify(schema).includes('"x-mcp-header"'),
  } satisfies RouteTool;
}

const hasTool = (operation: Operation): operation is Operation & { mcpTool: string } =>
  operation.auth === "bearer" && operation.mcpTool !== null;

/** The operations that are tools, in catalogue order, and by tool name: a `tools/call` names its tool on every call. */
const toolOperations = (catalogue as readonly Operation[]).filter(hasTool);
const toolOperationsByName = new Map(toolOperations.map((operation) => [operation.mcpTool, operation]));

/** Tools built so far in this isolate, by name: each is built once (its validators compile once), when first asked for. */
const built = new Map<string, RouteTool>();

/**
 * The tool of one operation, built on first use: a `tools/call` needs its own tool only, so an
 * isolate's first call converts one operation's schemas, not the whole catalogue's. The schemas do
 * not depend on the origin the document is generated for: only its servers and OAuth URLs do.
 */
function toolOf(origin: string, operation: Operation & { mcpTool: string }): RouteTool {
  let tool = built.get(operation.mcpTool);
  if (!tool) {
    const document = openApiDocumentFor(origin);
    const resultOf = (name: string) => {
      const draftOperation = toolOperationsByName.get(name);
      if (!draftOperation) throw new Error(`No tool ${name} to save drafts with`);
      return operationResult(document, draftOperation);
    };
    tool = routeTool(origin, operation, resultOf);
    built.set(operation.mcpTool, tool);
  }
  return tool;
}

/** Every route tool (`tools/list`), each built once per isolate. */
export function routeTools(origin: string): RouteTool[] {
  return toolOperations.map((operation) => toolOf(origin, operation));
}

export function routeToolNamed(origin: string, name: string): RouteTool | undefined {
  const operation = toolOperationsByName.get(name);
  return operation ? toolOf(origin, operation) : undefined;
}
