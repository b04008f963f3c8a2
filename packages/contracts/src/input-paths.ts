import { z } from "@hono/zod-openapi";

/**
 * What this module reads of a catalogue operation: its route's declared request. Structural, so
 * that errors (which name inputs) need not import the catalogue's types, which import errors.
 */
interface DeclaredOperation {
  route: { request?: unknown };
}

/** The surfaces an operation is called through: the REST API and the MCP endpoint's tools. */
export type Surface = "api" | "mcp";

/** The part of a REST request an input travels in. */
export type RequestPart = "path" | "query" | "body" | "header" | "cookie";

/**
 * One invalid input, as code throws it. `path` names it in the operation's input taken as one
 * object, path parameters, query parameters and body properties side by side (`fields.email`,
 * `limit`, `recordId`): exactly what an MCP tool takes as its arguments. `in` is the part of the
 * REST request it came in, given by the request validators, which know it (an unknown property is
 * declared nowhere); everywhere else the operation's declaration of the path's first name says it.
 * Each surface names the input its own way when it answers (`inputNaming`).
 */
export interface InvalidInput {
  path: string;
  message: string;
  in?: RequestPart;
}

/** How a surface names an invalid input in an error's `details`. */
export type InputNaming = (input: InvalidInput) => string;

/** An MCP tool's caller is told the argument itself, as it sent it (`fields.email`, `limit`). */
const ownPath: InputNaming = (input) => input.path;

/** The property names of a request's object schema (the inbound webhooks' bodies are unions of objects). */
function propertyNames(schema: unknown): string[] {
  if (schema instanceof z.ZodObject) return Object.keys(schema.shape);
  if (schema instanceof z.ZodUnion) return schema.options.flatMap(propertyNames);
  return [];
}

const partsOf = new WeakMap<DeclaredOperation, Map<string, RequestPart>>();

/** Where each input of an operation travels in its REST request, by the name the operation declares. */
export function requestParts(operation: DeclaredOperation): Map<string, RequestPart> {
  let parts = partsOf.get(operation);
  if (!parts) {
    const request = operation.route.request as { params?: unknown; query?: unknown; body?: { content: object } } | undefined;
    const body = (request?.body?.content as Record<string, { schema?: unknown }> | undefined)?.["application/json"]?.schema;
    parts = new Map<string, RequestPart>([
      ...propertyNames(body).map((name) => [name, "body"] as const),
      ...propertyNames(request?.query).map((name) => [name, "query"] as const),
      ...propertyNames(request?.params).map((name) => [name, "path"] as const),
    ]);
    partsOf.set(operation, parts);
  }
  return parts;
}

/**
 * The REST API names where a value travelled: `body.fields.email`, `query.limit`, `path.recordId`.
 * A path whose first name the operation does not declare, and no validator placed, is not one of
 * the request's inputs (a stored draft's `draft.to`) and is named as it is.
 */
function restNaming(operation: DeclaredOperation | undefined): InputNaming {
  const parts = operation ? requestParts(operation) : new Map<string, RequestPart>();
  return (input) => {
    const part = input.in ?? parts.get(input.path.split(".")[0] as string);
    if (part === undefined) return input.path;
    return input.path === "" ? part : `${part}.${input.path}`;
  };
}

/** How `surface` names the invalid inputs of `operation` (REST without an operation: as the validators placed them). */
export const inputNaming = (surface: Surface, operation?: DeclaredOperation): InputNaming =>
  surface === "mcp" ? ownPath : restNaming(operation);

/** An error's `details` as a surface answers them: each invalid input named its way, nothing else changed. */
export function namedDetails(details: unknown, naming: InputNaming = ownPath): unknown {
  if (!Array.isArray(details)) return details;
  return details.map((detail: unknown) => {
    if (detail === null || typeof detail !== "object" || typeof (detail as InvalidInput).path !== "string") return detail;
    const { in: _part, ...rest } = detail as InvalidInput;
    return { ...rest, path: naming(detail as InvalidInput) };
  });
}

/** `child` under `parent` in an input path, where the empty path is the whole input. */
export const inputPath = (parent: string, child: string | number) => (parent === "" ? String(child) : `${parent}.${child}`);
