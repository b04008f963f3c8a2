import { Validator } from "@cfworker/json-schema";
import { catalogue, type Operation, openApiDocument } from "@crm/contracts";

/**
 * Every response a test receives through `call()` is checked against the OpenAPI document: its
 * status must be documented for the operation, its JSON body must match that status's schema, and
 * its headers those the document declares (required ones present, values of the declared shape).
 * So the document and the server cannot drift apart unnoticed.
 *
 * Skipped by rule: requests that match no catalogue operation (the document, the docs page,
 * removed routes, unknown paths, and other methods on a known path, which answer 404/405/410).
 */

type Json = Record<string, unknown>;
interface DocumentedResponse {
  headers?: Record<string, { $ref: string }>;
  content?: Record<string, { schema: Json }>;
}
interface HeaderComponent {
  required?: boolean;
  schema: Json;
}

const document = openApiDocument("http://127.0.0.1:8787") as unknown as {
  paths: Record<string, Record<string, { responses: Record<string, DocumentedResponse> }>>;
  components: { schemas: Record<string, Json>; headers: Record<string, HeaderComponent> };
};

/**
 * The document's object schemas say which properties a response has, and the server must send
 * no others (a leaked hash or internal id would otherwise pass): each object schema with
 * `properties` is closed with `unevaluatedProperties: false`, except inside `allOf`, where the
 * branches describe one object together. Only for checking responses; the document stays open.
 */
export function closed(node: unknown, inAllOf = false): unknown {
  if (Array.isArray(node)) return node.map((item) => closed(item, inAllOf));
  if (!node || typeof node !== "object") return node;
  const schema = Object.fromEntries(
    Object.entries(node as Json).map(([key, value]) => {
      if (key === "allOf") return [key, (value as unknown[]).map((branch) => closed(branch, true))];
      if (key === "properties" || key === "$defs")
        return [key, Object.fromEntries(Object.entries(value as Json).map(([name, sub]) => [name, closed(sub)]))];
      if (key === "items" || key === "additionalProperties" || key === "anyOf" || key === "oneOf") return [key, closed(value)];
      return [key, value];
    }),
  );
  const open = !("properties" in schema) || "additionalProperties" in schema || "unevaluatedProperties" in schema;
  return open || inAllOf ? schema : { ...schema, unevaluatedProperties: false };
}

/** Refs of the document (`#/components/schemas/X`) as refs of a standalone schema (`#/$defs/X`), objects closed. */
const standalone = (schema: unknown): unknown =>
  closed(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', '"#/$defs/')));
const definitions = standalone(document.components.schemas) as Json;

const validators = new Map<string, Validator>();
/** Stops at the first error (fast, run on every response); `explain` collects them all for the message. */
function validatorFor(key: string, schema: Json, explain = false): Validator {
  const cacheKey = `${key}${explain ? " explain" : ""}`;
  let validator = validators.get(cacheKey);
  if (!validator) {
    validator = new Validator({ ...(standalone(schema) as Json), $defs: definitions }, "2020-12", !explain);
    validators.set(cacheKey, validator);
  }
  return validator;
}

/** Literal segments win over parameters, so `/webhooks/event-types` is not `/webhooks/{webhookId}`. */
const byFewestParameters = [...catalogue].sort((a, b) => (a.path.match(/\{/g)?.length ?? 0) - (b.path.match(/\{/g)?.length ?? 0));
const templates = new Map(
  byFewestParameters.map((operation) => [operation, new RegExp(`^${operation.path.replace(/\{[^}]+\}/g, "[^/]+")}$`)]),
);

/** The catalogue operation a request names (`path` without its query), if any. */
export function operationOf(method: string, path: string): Operation | undefined {
  // The path's own template first: `GET /records/batch` is a 405 of `/records/batch`, not a `getRecord`.
  const template = byFewestParameters.find((operation) => templates.get(operation)?.test(path))?.path;
  return catalogue.find((operation) => operation.path === template && operation.method === method.toLowerCase());
}

function problemsOfHeaders(operation: Operation, status: string, documented: DocumentedResponse, response: Response) {
  const problems: string[] = [];
  for (const [name, reference] of Object.entries(documented.headers ?? {})) {
    const header = document.components.headers[reference.$ref.split("/").pop() as string] as HeaderComponent;
    const value = response.headers.get(name);
    if (value === null) {
      if (header.required) problems.push(`header ${name} is required but missing`);
      continue;
    }
    const instance = header.schema.type === "integer" && /^\d+$/.test(value) ? Number(value) : value;
    const result = validatorFor(`${operation.operationId} ${status} header ${name}`, header.schema).validate(instance);
    if (!result.valid) problems.push(`header ${name}: ${JSON.stringify(value)} does not match ${JSON.stringify(header.schema)}`);
  }
  return problems;
}

/**
 * DESIGN.md section 2: every list answers `{ data, pagination }`. Checked on the body itself, so a
 * list documented without `pagination` fails here even though it matches its own schema.
 */
function problemsOfListShape(body: unknown): string[] {
  if (!body || typeof body !== "object" || !Array.isArray((body as Json).data)) return [];
  const pagination = (body as Json).pagination as Json | undefined;
  const valid =
    !!pagination &&
    typeof pagination.hasMore === "boolean" &&
    (pagination.cursor === null ? pagination.hasMore === false : typeof pagination.cursor === "string" && pagination.hasMore);
  return valid ? [] : ["body: a list (`data` array) without `pagination: { cursor, hasMore }` (cursor null iff hasMore false)"];
}

/** Throws, naming every mismatch, when the response is not what the document says for its request. */
export async function assertDocumentedResponse(method: string, path: string, response: Response): Promise<void> {
  const operation = operationOf(method, path.split("?")[0] as string);
  if (!operation) return;
  const status = String(response.status);
  const documented = document.paths[operation.path]?.[operation.method]?.responses[status];
  const where = `${method} ${path} → ${status} (${operation.operationId})`;
  if (!documented) throw new Error(`${where}: status not documented for this operation`);
  const problems = problemsOfHeaders(operation, status, documented, response);
  const schema = documented.content?.["application/json"]?.schema;
  if (schema) {
    const type = response.headers.get("content-type") ?? "";
    if (!type.startsWith("application/json")) problems.push(`content-type ${type}, documented application/json`);
    else {
      const body = await response.clone().json();
      problems.push(...problemsOfListShape(body));
      const key = `${operation.operationId} ${status}`;
      if (!validatorFor(key, schema).validate(body).valid) {
        for (const error of validatorFor(key, schema, true).validate(body).errors)
          problems.push(`body ${error.instanceLocation}: ${error.error}`);
      }
    }
  }
  if (problems.length > 0) throw new Error(`${where} does not match the OpenAPI document:\n  ${problems.join("\n  ")}`);
}
