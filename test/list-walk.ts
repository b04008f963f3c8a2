import { catalogue, type Operation, openApiDocument } from "@crm/contracts";
import { expect } from "vitest";
import { call } from "./stack";

/**
 * The list walk of issue 38: every list operation of the catalogue, read from the OpenAPI document
 * (its query parameters, or the body of a query operation such as `POST /records/query`), paged
 * with each of its filters and each order it offers. test/list-walk-data.ts says how to get data
 * for each; this file knows nothing of single operations.
 */

type Json = Record<string, unknown>;
type Schema = { $ref?: string; enum?: string[]; type?: string; items?: Schema; properties?: Record<string, Schema> } & Json;
interface DocumentedParameter {
  name: string;
  in: string;
  required?: boolean;
  schema: Schema & { maximum?: number };
}
interface DocumentedOperation {
  parameters?: DocumentedParameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
}

const document = openApiDocument("http://127.0.0.1:8787") as unknown as {
  paths: Record<string, Record<string, DocumentedOperation>>;
  components: { schemas: Record<string, Schema> };
};

const resolved = (schema: Schema | undefined): Schema | undefined =>
  schema?.$ref ? resolved(document.components.schemas[schema.$ref.split("/").pop() as string]) : schema;

/**
 * The values a parameter declares: its enum, or, for a list of sorts, the enum of its items (the
 * `direction` of `sorts: [{ fieldDefinitionId, direction }]`), each of which the walk covers.
 */
function declaredValues(schema: Schema | undefined): string[] | undefined {
  const own = resolved(schema);
  if (own?.enum) return own.enum;
  // A boolean query parameter is sent as its two words.
  if (own?.type === "boolean") return ["true", "false"];
  if (own?.type !== "array") return undefined;
  const itemProperties = Object.values(resolved(own.items)?.properties ?? {});
  return itemProperties.map((property) => resolved(property)?.enum).find((values) => values !== undefined);
}

export interface Parameter {
  name: string;
  required: boolean;
  /** The enum values the document declares (a boolean's two); undefined for a free value (an id, a word, a time). */
  declared: string[] | undefined;
}

export interface ListOperation {
  operation: Operation;
  /** Where its parameters, `limit` and `cursor` travel. */
  carrier: "query" | "body";
  parameters: Parameter[];
  maxLimit: number;
}

const paging = new Set(["limit", "cursor"]);

function listOperationOf(operation: Operation): ListOperation | undefined {
  const documented = document.paths[operation.path]?.[operation.method] as DocumentedOperation;
  const query = (documented.parameters ?? []).filter((parameter) => parameter.in === "query");
  if (query.some((parameter) => parameter.name === "cursor"))
    return {
      operation,
      carrier: "query",
      parameters: query
        .filter((parameter) => !paging.has(parameter.name))
        .map((parameter) => ({
          name: parameter.name,
          required: parameter.required === true,
          declared: declaredValues(parameter.schema),
        })),
      maxLimit: query.find((parameter) => parameter.name === "limit")?.schema.maximum as number,
    };
  const body = resolved(documented.requestBody?.content["application/json"]?.schema) as
    | (Schema & { required?: string[] })
    | undefined;
  if (!body?.properties?.cursor) return undefined;
  return {
    operation,
    carrier: "body",
    parameters: Object.entries(body.properties)
      .filter(([name]) => !paging.has(name))
      .map(([name, schema]) => ({ name, required: body.required?.includes(name) ?? false, declared: declaredValues(schema) })),
    maxLimit: (resolved(body.properties.limit) as { maximum: number }).maximum,
  };
}

/** Every operation that pages with `cursor`: a new list is walked as soon as the catalogue has it. */
export const listOperations = catalogue.map(listOperationOf).filter((list) => list !== undefined);

export type Item = Record<string, unknown>;
/** The documented order as a comparison of two items; negative when `a` comes first. */
export type Compare = (a: Item, b: Item) => number;

/** One value of a parameter, and the order the list answers in with it when it is not the list's own (a sort, a view). */
export interface Variant {
  value: unknown;
  order?: Compare;
}

export interface Scenario {
  /** The operation's path with its path parameters filled in. */
  path: string;
  /** Request headers: the credential (a key's `authorization`, a console session), none for a public list. */
  headers: Record<string, string>;
  /**
   * A way to get each parameter's values: required for every parameter the document declares no
   * enum for (called without argument), optional for an enum one (called with each declared value;
   * the value itself is sent when absent). Every variant must match more than two pages of data.
   */
  values: Record<string, (declared?: string) => Variant[]>;
  /**
   * The documented order, or null where the order is not visible in the items (best match first,
   * the order events were written): there the pages must still join up to the one large page.
   */
  order: Compare | null;
  /** The identity of an item; `id` unless said otherwise. */
  idOf?: (item: Item) => string;
  /** A published catalogue of a fixed size the test cannot add to (event types, integrations): more than two pages of one. */
  fixedSize?: boolean;
}

/** Ascending by each key in turn (numbers, strings); the keys of items of the documented order. */
export const ascendingBy =
  (...keys: ((item: Item) => number | string)[]): Compare =>
  (a, b) => {
    for (const key of keys) {
      const [x, y] = [key(a), key(b)];
      if (x !== y) return x < y ? -1 : 1;
    }
    return 0;
  };
export const descendingBy =
  (...keys: ((item: Item) => number | string)[]): Compare =>
  (a, b) =>
    ascendingBy(...keys)(b, a);
export const field =
  <T extends number | string>(name: string) =>
  (item: Item) =>
    item[name] as T;

interface Page {
  data: Item[];
  pagination: { cursor: string | null; hasMore: boolean };
}

/** One walk of the matrix: an operation with one parameter set to one value (or none set). */
export interface Case {
  label: string;
  parameters: Record<string, unknown>;
  order: Compare | null;
}

/** The cases of an operation: its required parameters alone, then with each value of each other parameter. */
export function casesOf(list: ListOperation, scenario: Scenario): Case[] {
  const id = list.operation.operationId;
  const variantsOf = (parameter: Parameter): { declared?: string; variant: Variant }[] => {
    const make = scenario.values[parameter.name];
    if (parameter.declared)
      return parameter.declared.flatMap((declared) =>
        (make ? make(declared) : [{ value: declared }]).map((variant) => ({ declared, variant })),
      );
    if (!make)
      throw new Error(`${id}: no way to get data for its parameter \`${parameter.name}\`: add it to the scenario's values`);
    return make().map((variant) => ({ variant }));
  };
  for (const name of Object.keys(scenario.values))
    if (!list.parameters.some((parameter) => parameter.name === name))
      throw new Error(`${id}: the scenario gives values for \`${name}\`, which the operation does not declare`);
  const required = Object.fromEntries(
    list.parameters
      .filter((parameter) => parameter.required)
      .map((parameter) => [parameter.name, variantsOf(parameter)[0]?.variant.value]),
  );
  const cases: Case[] = [{ label: id, parameters: required, order: scenario.order }];
  for (const parameter of list.parameters.filter((candidate) => !candidate.required))
    for (const [index, { declared, variant }] of variantsOf(parameter).entries())
      cases.push({
        label: `${id} ${parameter.name}=${declared ?? `#${index}`}`,
        parameters: { ...required, [parameter.name]: variant.value },
        order: variant.order ?? scenario.order,
      });
  return cases;
}

async function pageOf(list: ListOperation, scenario: Scenario, testCase: Case, limit: number, cursor: string | null) {
  const where = `${testCase.label} limit=${limit}${cursor ? ` cursor=${cursor}` : ""}`;
  let response: Response;
  if (list.carrier === "body") {
    response = await call(scenario.path, {
      method: list.operation.method.toUpperCase(),
      headers: scenario.headers,
      json: { ...testCase.parameters, limit, ...(cursor ? { cursor } : {}) },
    });
  } else {
    const query = new URLSearchParams(
      Object.entries({ ...testCase.parameters, limit, ...(cursor ? { cursor } : {}) }).map(([name, value]) => [
        name,
        String(value),
      ]),
    );
    response = await call(`${scenario.path}?${query}`, { headers: scenario.headers });
  }
  if (response.status !== 200) throw new Error(`${where}: answered ${response.status} ${await response.text()}`);
  const page = (await response.json()) as Page;
  expect(page.data.length, where).toBeLessThanOrEqual(limit);
  return page;
}

/** A limit=1 walk stops after this many pages: enough to cross several page boundaries, few enough to stay quick. */
const longestWalk = 7;

/**
 * Walks one case: the one large page (`limit` = its maximum) holds more than two pages of data in
 * the documented order; the walks with `limit=1` and `limit=2` join up to exactly that page, so no
 * item is repeated or missed and the order holds across page boundaries.
 */
export async function walkCase(list: ListOperation, scenario: Scenario, testCase: Case) {
  const idOf = scenario.idOf ?? ((item: Item) => item.id as string);
  const whole = await pageOf(list, scenario, testCase, list.maxLimit, null);
  expect(whole.pagination, `${testCase.label}: one page of ${list.maxLimit} holds the whole test data`).toEqual({
    cursor: null,
    hasMore: false,
  });
  const ids = whole.data.map(idOf);
  expect(new Set(ids).size, `${testCase.label}: the same item twice in one page`).toBe(ids.length);
  expect(ids.length, `${testCase.label}: the scenario makes too little data for more than two pages`).toBeGreaterThan(
    scenario.fixedSize ? 2 : 4,
  );
  if (testCase.order) {
    const ordered = [...whole.data].sort(testCase.order).map(idOf);
    expect(ids, `${testCase.label}: not in the documented order`).toEqual(ordered);
  }
  for (const limit of [1, 2]) {
    const walked: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await pageOf(list, scenario, testCase, limit, cursor);
      expect(page.data.length, `${testCase.label} limit=${limit}: an empty page before the end`).toBeGreaterThan(0);
      walked.push(...page.data.map(idOf));
      cursor = page.pagination.cursor;
      pages++;
    } while (cursor && (limit > 1 || pages < longestWalk));
    const expected = cursor ? ids.slice(0, walked.length) : ids;
    expect(walked, `${testCase.label} limit=${limit}: the pages do not join up to the one large page`).toEqual(expected);
  }
}
