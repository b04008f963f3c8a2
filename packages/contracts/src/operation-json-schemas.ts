import type { openApiDocument } from "./openapi";
import type { Operation } from "./operation";

/**
 * An operation's request and response as self-contained JSON Schemas (2020-12), derived from the
 * OpenAPI document, for surfaces that take one argument object instead of an HTTP request (MCP
 * tools). The document is the source because it already holds what a caller sends (query integers
 * as integers, not the strings the HTTP layer parses), so nothing about a route is written twice.
 *
 * The schemas are written to be portable across MCP clients: one `type` per schema (a nullable
 * value is `anyOf` its type and null), references into `$defs` of the same document, and no schema
 * without a validating keyword (`z.unknown()` becomes "any JSON value", spelled with types).
 */

export type JsonSchema = { [keyword: string]: unknown };
type OpenApiDocument = ReturnType<typeof openApiDocument>;

interface ParameterObject {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: JsonSchema;
}

interface OperationObject {
  parameters?: ParameterObject[];
  requestBody?: { required?: boolean; content: Record<string, { schema?: JsonSchema }> };
  responses: Record<string, { content?: Record<string, { schema?: JsonSchema }> }>;
}

/** Where each argument of an operation goes in its HTTP request. */
export interface OperationArguments {
  /** One object of every argument: path parameters, query parameters and the JSON body's properties. */
  schema: JsonSchema;
  path: string[];
  query: string[];
  body: string[];
}

const componentPrefix = "#/components/schemas/";

/** Keywords that make a schema validate something; a schema with none of them accepts any value. */
const validatingKeywords = new Set([
  "type",
  "enum",
  "const",
  "anyOf",
  "oneOf",
  "allOf",
  "not",
  "$ref",
  "properties",
  "items",
  "prefixItems",
  "required",
  "additionalProperties",
  "patternProperties",
  "propertyNames",
]);

const jsonTypes = ["string", "number", "boolean", "null", "array", "object"] as const;

/** What `z.unknown()` accepts, written with a type per branch so that clients which need one keep it. */
const anyJsonValue = (annotations: JsonSchema): JsonSchema => ({ ...annotations, anyOf: jsonTypes.map((type) => ({ type })) });

function component(document: OpenApiDocument, ref: string): JsonSchema {
  const found = (document.components?.schemas as Record<string, JsonSchema> | undefined)?.[ref.slice(componentPrefix.length)];
  if (!found) throw new Error(`The OpenAPI document has no schema ${ref}`);
  return found;
}

const isSchema = (value: unknown): value is JsonSchema => typeof value === "object" && value !== null && !Array.isArray(value);

/** Rewrites one schema and its subschemas, and collects the components it references into `defs`. */
function portable(schema: JsonSchema, document: OpenApiDocument, defs: Map<string, JsonSchema>): JsonSchema {
  const ref = schema.$ref;
  if (typeof ref === "string" && ref.startsWith(componentPrefix)) {
    const name = ref.slice(componentPrefix.length);
    if (!defs.has(name)) {
      defs.set(name, {}); // a placeholder first: a component may refer to itself
      defs.set(name, portable(component(document, ref), document, defs));
    }
    return { ...schema, $ref: `#/$defs/${name}` };
  }
  const rewritten: JsonSchema = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (keyword === "properties" || keyword === "patternProperties") {
      rewritten[keyword] = Object.fromEntries(
        Object.entries(value as Record<string, JsonSchema>).map(([name, property]) => [name, portable(property, document, defs)]),
      );
    } else if (keyword === "anyOf" || keyword === "oneOf" || keyword === "allOf" || keyword === "prefixItems") {
      rewritten[keyword] = (value as JsonSchema[]).map((branch) => portable(branch, document, defs));
    } else if (isSchema(value) && ["items", "additionalProperties", "not", "propertyNames"].includes(keyword)) {
      rewritten[keyword] = portable(value, document, defs);
    } else if (keyword !== "example") {
      // `example` is OpenAPI's, not JSON Schema's; the description says what a value means.
      rewritten[keyword] = value;
    }
  }
  if (!Object.keys(rewritten).some((keyword) => validatingKeywords.has(keyword))) return anyJsonValue(rewritten);
  const { type } = rewritten;
  if (Array.isArray(type)) {
    // `type: ["string", "null"]` → one branch per type, each keeping the keywords that apply to it.
    const { description, default: fallback, type: _, ...rest } = rewritten;
    const values = Array.isArray(rest.enum) ? { enum: rest.enum.filter((value) => value !== null) } : {};
    const branches = (type as string[]).map((branchType) =>
      branchType === "null" ? { type: "null" } : { ...rest, ...values, type: branchType },
    );
    return {
      ...(description === undefined ? {} : { description }),
      ...(fallback === undefined ? {} : { default: fallback }),
      anyOf: branches,
    };
  }
  return rewritten;
}

/** A root schema with the components it references as `$defs`. */
function withDefs(schema: JsonSchema, defs: Map<string, JsonSchema>): JsonSchema {
  return defs.size === 0 ? schema : { ...schema, $defs: Object.fromEntries([...defs].sort(([a], [b]) => a.localeCompare(b))) };
}

function operationObject(document: OpenApiDocument, operation: Operation): OperationObject {
  const found = (document.paths?.[operation.path] as Record<string, OperationObject> | undefined)?.[operation.method];
  if (!found) throw new Error(`The OpenAPI document has no ${operation.method.toUpperCase()} ${operation.path}`);
  return found;
}

/** The JSON body's object schema, with its references resolved far enough to read its properties. */
function bodyObject(document: OpenApiDocument, operationObject: OperationObject, operation: Operation): JsonSchema | null {
  const content = operationObject.requestBody?.content;
  if (!content) return null;
  const schema = content["application/json"]?.schema;
  if (!schema) throw new Error(`${operation.operationId}: only JSON bodies can be arguments`);
  const resolved = typeof schema.$ref === "string" ? component(document, schema.$ref) : schema;
  if (resolved.type !== "object") throw new Error(`${operation.operationId}: the body is not an object`);
  return resolved;
}

/**
 * The arguments of an operation as one object schema: path and query parameters (as the caller
 * means them: integers are integers) and the JSON body's properties, each required as the route
 * requires it, nothing else accepted. `extra` adds arguments of the surface (an idempotency key).
 */
export function operationArguments(
  document: OpenApiDocument,
  operation: Operation,
  extra: { properties: Record<string, JsonSchema>; required: string[] } = { properties: {}, required: [] },
): OperationArguments {
  const found = operationObject(document, operation);
  const defs = new Map<string, JsonSchema>();
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const path: string[] = [];
  const query: string[] = [];
  const add = (name: string, schema: JsonSchema, isRequired: boolean) => {
    if (name in properties) throw new Error(`${operation.operationId}: two arguments are named ${name}`);
    properties[name] = schema;
    if (isRequired) required.push(name);
  };
  for (const parameter of found.parameters ?? []) {
    if (parameter.in !== "path" && parameter.in !== "query") continue; // headers are the surface's (Idempotency-Key)
    const schema = portable(parameter.schema ?? {}, document, defs);
    const described = parameter.description && !schema.description ? { ...schema, description: parameter.description } : schema;
    add(parameter.name, described, parameter.in === "path" || parameter.required === true);
    (parameter.in === "path" ? path : query).push(parameter.name);
  }
  const body = bodyObject(document, found, operation);
  const bodyRequired = new Set((body?.required as string[] | undefined) ?? []);
  const bodyProperties = Object.entries((body?.properties as Record<string, JsonSchema> | undefined) ?? {});
  for (const [name, schema] of bodyProperties) {
    add(name, portable(schema, document, defs), found.requestBody?.required === true && bodyRequired.has(name));
  }
  for (const [name, schema] of Object.entries(extra.properties)) add(name, schema, extra.required.includes(name));
  const schema = withDefs(
    { type: "object", properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false },
    defs,
  );
  return { schema, path, query, body: bodyProperties.map(([name]) => name) };
}

/**
 * The JSON Schema of an operation's successful JSON answers (one of them when it has several, such
 * as 200 updated / 201 created), or null when it answers something else (an attachment's bytes).
 */
export function operationResult(document: OpenApiDocument, operation: Operation): JsonSchema | null {
  const found = operationObject(document, operation);
  const defs = new Map<string, JsonSchema>();
  const successes = Object.entries(found.responses)
    .filter(([status]) => status.startsWith("2"))
    .map(([, response]) => response.content?.["application/json"]?.schema)
    .filter((schema): schema is JsonSchema => schema !== undefined)
    .map((schema) => portable(schema, document, defs));
  const distinct = [...new Map(successes.map((schema) => [JSON.stringify(schema), schema])).values()];
  const [only] = distinct;
  if (!only) return null;
  // A tool's result schema is an object schema at its root (MCP), whatever the answers reference.
  return withDefs(distinct.length === 1 && only.type === "object" ? only : { type: "object", anyOf: distinct }, defs);
}

/**
 * Any schema of a document (the API's, or one generated the same way, such as the events') as a
 * portable JSON Schema of its own: what the integrations catalogue publishes for each event.
 */
export function documentJsonSchema(document: OpenApiDocument, schema: JsonSchema): JsonSchema {
  const defs = new Map<string, JsonSchema>();
  return withDefs(portable(schema, document, defs), defs);
}
