import { regional } from "@crm/db";
import { expect } from "vitest";
import { regionDb } from "./fixtures";
import { call } from "./stack";

/** Helpers for the CRM metadata tests: typed calls that assert the expected status. */

export interface ObjectType {
  id: string;
  workspaceId: string;
  slug: string;
  name?: string;
  nameSingular: string;
  namePlural: string;
  icon?: string;
  color?: string;
  isSystem: boolean;
  isActive: boolean;
  order: number;
  createdAt: number;
  updatedAt: number;
}

export interface FieldOption {
  id: string;
  fieldDefinitionId: string;
  value: string;
  label: string;
  order: number;
  isDefault: boolean;
  isActive: boolean;
  color: string;
}

export interface Field {
  id: string;
  objectTypeId: string;
  slug: string;
  name: string;
  type: string;
  isRequired: boolean;
  isUnique: boolean;
  defaultValue: unknown;
  isSystem: boolean;
  isMultiple: boolean;
  relationObjectTypeId: string | null;
  order: number;
  options?: FieldOption[];
}

export interface View {
  id: string;
  workspaceId: string;
  objectTypeId: string;
  name: string;
  type: "table" | "kanban";
  isDefault: boolean;
  order: number;
  emoji?: string;
  createdBy: string;
  config: {
    columns: { fieldDefinitionId: string }[];
    filter: { op: string; conditions: { fieldDefinitionId: string; operator: string; value?: unknown }[] } | null;
    sorts: { fieldDefinitionId: string; direction: string }[];
    groupBy: string | null;
  };
  kanbanFieldDefinitionId?: string;
  kanbanWinOptionIds: string[];
  kanbanLossOptionIds: string[];
}

export interface ErrorBody {
  error: { code: string; message: string; details?: { path: string; message: string }[] };
}

export const unique = () => crypto.randomUUID().slice(0, 8);

/** Calls the API and checks the status; returns the parsed body. */
export async function expectStatus<T>(status: number, path: string, init: Parameters<typeof call>[1] = {}): Promise<T> {
  const response = await call(path, init);
  const text = await response.text();
  expect(response.status, `${init.method ?? "GET"} ${path}: ${text}`).toBe(status);
  return (text ? JSON.parse(text) : undefined) as T;
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
