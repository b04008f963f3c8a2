import type {
  ErrorBody as ErrorEnvelope,
  fieldOptionSchema,
  fieldSchema,
  objectTypeSchema,
  recordViewSchema,
} from "@crm/contracts";
import { regional } from "@crm/db";
import { expect } from "vitest";
import { regionDb } from "./fixtures";
import { operationOf } from "./response-contract";
import { call } from "./stack";

/** Helpers for the CRM metadata tests: typed calls that assert the expected status. */

/** What a zod schema of the contracts parses to: the type of a response, an event or a part of one. */
export type Parsed<Schema extends { parse(data: unknown): unknown }> = ReturnType<Schema["parse"]>;

/** An operation of the catalogue, as far as its responses' types go. */
interface DocumentedOperation {
  operationId: string;
  method: string;
  path: string;
  route: { responses: object };
}

/** The JSON body `operation` answers with the success `status`, as its schema in the catalogue infers it. */
export type ResponseOf<
  O extends DocumentedOperation,
  S extends keyof O["route"]["responses"],
> = O["route"]["responses"][S] extends {
  content: { "application/json": { schema: infer Schema extends { parse(data: unknown): unknown } } };
}
  ? Parsed<Schema>
  : unknown;

/**
 * The error envelope of the contracts, `details` as a validation error (`invalid_request`) gives it:
 * where each problem is and what it is (the document leaves `details` open: other codes give others).
 */
export interface ErrorBody {
  error: Omit<ErrorEnvelope["error"], "details"> & { details?: { path: string; message: string }[] };
}
export type ObjectType = Parsed<typeof objectTypeSchema>;
export type FieldOption = Parsed<typeof fieldOptionSchema>;
export type Field = Parsed<typeof fieldSchema>;
export type View = Parsed<typeof recordViewSchema>;

export const unique = () => crypto.randomUUID().slice(0, 8);

/** Calls the API and checks the status; returns the parsed body. */
export async function expectStatus<T>(status: number, path: string, init: Parameters<typeof call>[1] = {}): Promise<T> {
  const response = await call(path, init);
  const text = await response.text();
  expect(response.status, `${init.method ?? "GET"} ${path}: ${text}`).toBe(status);
  return (text ? JSON.parse(text) : undefined) as T;
}

/**
 * `expectStatus` for a success of a catalogue operation: the body comes back typed as the contracts
 * declare it (`call()` has validated it against the document), and the request must be the
 * operation's, so the type cannot name another route's body.
 */
export async function expectOperation<O extends DocumentedOperation, S extends keyof O["route"]["responses"] & number>(
  operation: O,
  status: S,
  path: string,
  init: Parameters<typeof call>[1] = {},
): Promise<ResponseOf<O, S>> {
  const method = init.method ?? "GET";
  expect(operationOf(method, path.split("?")[0] as string)?.operationId, `${method} ${path}`).toBe(operation.operationId);
  return expectStatus<ResponseOf<O, S>>(status, path, init);
}

/** The body of a response `call()` returned, which must have the success `status` of `operation`, typed as the contracts declare it. */
export async function bodyOf<O extends DocumentedOperation, S extends keyof O["route"]["responses"] & number>(
  response: Response,
  _operation: O,
  status: S,
): Promise<ResponseOf<O, S>> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  return JSON.parse(text) as ResponseOf<O, S>;
}

/** The `error` of an error envelope (`call()` has checked the body against the document for its status). */
export async function errorOf(response: Response): Promise<ErrorBody["error"]> {
  return ((await response.json()) as ErrorBody).error;
}

export const objectTypesOf = async (key: string, workspaceId: string) =>
  (await expectStatus<{ objects: ObjectType[] }>(200, `/crm/objects?workspaceId=${workspaceId}`, { key })).objects;

export const fieldsOf = async (key: string, objectTypeId: string) =>
  (await expectStatus<{ data: Field[] }>(200, `/crm/objects/${objectTypeId}/fields?limit=100`, { key })).data;

export const viewsOf = async (key: string, objectTypeId: string) =>
  (await expectStatus<{ data: View[] }>(200, `/crm/objects/${objectTypeId}/views?limit=100`, { key })).data;

export async function createObjectType(key: string, workspaceId: string, extra: Record<string, unknown> = {}) {
  const suffix = unique();
  return (
    await expectStatus<{ object: ObjectType }>(201, "/crm/objects", {
      method: "POST",
      key,
      json: { workspaceId, nameSingular: `Vendor ${suffix}`, namePlural: `Vendors ${suffix}`, ...extra },
    })
  ).object;
}

export async function createField(key: string, objectTypeId: string, body: Record<string, unknown>) {
  return (await expectStatus<{ field: Field }>(201, `/crm/objects/${objectTypeId}/fields`, { method: "POST", key, json: body }))
    .field;
}

export async function createView(key: string, objectTypeId: string, body: Record<string, unknown>) {
  return (await expectStatus<{ view: View }>(201, `/crm/objects/${objectTypeId}/views`, { method: "POST", key, json: body }))
    .view;
}

/**
 * A record written straight into the us region's database with the given stored values, for
 * cascade tests that need exact rows (including relations to records that do not exist).
 */
export async function storeRecord(
  record: { id: string; workspaceId: string; objectTypeId: string },
  values: { fieldDefinitionId: string; text?: string; number?: number; target?: string }[],
) {
  const db = regionDb("us");
  const now = Date.now();
  await db.batch([
    db.insert(regional.records).values({ ...record, createdBy: "usr_test00000", createdAt: now, updatedAt: now }),
    ...values.map((value) =>
      db.insert(regional.recordValues).values({
        recordId: record.id,
        fieldDefinitionId: value.fieldDefinitionId,
        position: 0,
        valueText: value.text ?? value.target ?? null,
        valueNumber: value.number ?? null,
        targetRecordId: value.target ?? null,
      }),
    ),
  ]);
}
