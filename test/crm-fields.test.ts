import { regional } from "@crm/db";
import { eq, inArray } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import {
  createField,
  createObjectType,
  createView,
  type ErrorBody,
  expectStatus,
  type Field,
  type FieldOption,
  fieldsOf,
  objectTypesOf,
  storeRecord,
} from "./crm";
import { countRows, regionDb } from "./fixtures";
import { cast } from "./stack";

async function customType() {
  const { alice, sales } = await cast();
  return { key: alice.apiKey, sales, object: await createObjectType(alice.apiKey, sales.id) };
}

describe("fields", () => {
  it("are created in every type, with options for select types and a target for relations", async () => {
    const { key, object, sales } = await customType();
    const [, companies] = await objectTypesOf(key, sales.id);
    const specs: Record<string, unknown>[] = [
      { name: "Notes", type: "text", defaultValue: "n/a" },
      { name: "Score", type: "number", defaultValue: 3.5, isUnique: true },
      { name: "Active", type: "checkbox", defaultValue: true },
      { name: "Renewal", type: "date", defaultValue: "2027-01-31" },
      { name: "Last contact", type: "timestamp" },
      { name: "Billing email", type: "email", isUnique: true },
      { name: "Phone", type: "phone" },
      { name: "Website", type: "url" },
      { name: "Domain", type: "domain" },
      {
        name: "Tier",
        type: "select",
        options: [
          { value: "gold", isDefault: true, color: "#eab308" },
          { value: "silver", label: "Silver" },
        ],
      },
      {
        name: "Tags",
        type: "multiselect",
        options: [
          { value: "a", isDefault: true },
          { value: "b", isDefault: true },
        ],
      },
      { name: "Parent", type: "relation", relationObjectTypeId: companies?.id, isMultiple: true },
      { name: "Owner", type: "user" },
    ];
    for (const spec of specs) {
      const field = await createField(key, object.id, spec);
      expect(field).toMatchObject({
        objectTypeId: object.id,
        name: spec.name,
        type: spec.type,
        isSystem: false,
        isRequired: false,
      });
      expect(field.slug).toMatch(/^[a-z][a-z0-9_]*$/);
    }
    const fields = await fieldsOf(key, object.id);
    expect(fields.map((field) => field.order)).toEqual(fields.map((_, i) => i));
    const bySlug = (slug: string) => fields.find((field) => field.slug === slug) as Field;
    expect(bySlug("score")).toMatchObject({ defaultValue: 3.5, isUnique: true });
    expect(bySlug("tier").defaultValue).toBe("gold");
    expect(bySlug("tier").options?.map((option) => [option.value, option.label, option.isDefault, option.order])).toEqual([
      ["gold", "gold", true, 0],
      ["silver", "Silver", false, 1],
    ]);
    expect(bySlug("tags")).toMatchObject({ isMultiple: true, defaultValue: ["a", "b"] });
    expect(bySlug("parent")).toMatchObject({ isMultiple: true, relationObjectTypeId: companies?.id });
    expect(bySlug("notes").options).toBeUndefined();
  });

  it("refuse bad input with a detail per problem", async () => {
    const { key, object } = await customType();
    const { alice, globex, dave } = await cast();
    const [globexCompanies] = await objectTypesOf(dave.apiKey, globex.workspaces[0]?.id as string);
    const cases: [Record<string, unknown>, string][] = [
      [{ name: "N", type: "number", defaultValue: "three" }, "body.defaultValue"],
      [{ name: "D", type: "date", defaultValue: "2027-02-30" }, "body.defaultValue"],
      [{ name: "E", type: "email", defaultValue: "not-an-email" }, "body.defaultValue"],
      [{ name: "S", type: "select", options: [{ value: "a" }], defaultValue: "a" }, "body.defaultValue"],
      [
        {
          name: "S",
          type: "select",
          options: [
            { value: "a", isDefault: true },
            { value: "b", isDefault: true },
          ],
        },
        "body.options",
      ],
      [{ name: "S", type: "select", options: [{ value: "a" }, { value: "a" }] }, "body.options"],
      [{ name: "T", type: "text", options: [{ value: "a" }] }, "body.options"],
      [{ name: "R", type: "relation" }, "body.relationObjectTypeId"],
      [{ name: "R", type: "relation", relationObjectTypeId: globexCompanies?.id }, "body.relationObjectTypeId"],
      [{ name: "T", type: "text", relationObjectTypeId: object.id }, "body.relationObjectTypeId"],
      [{ name: "C", type: "checkbox", isUnique: true }, "body.isUnique"],
      [{ name: "X", type: "currency" }, "body.type"],
      [{ name: "", type: "text" }, "body.name"],
      [{ name: "X", type: "text", isSystem: true }, "body.isSystem"],
    ];
    for (const [json, path] of cases) {
      const error = await expectStatus<ErrorBody>(400, `/crm/objects/${object.id}/fields`, { method: "POST", key, json });
      expect(
        error.error.details?.map((detail) => detail.path),
        JSON.stringify(json),
      ).toContain(path);
    }
    await createField(alice.apiKey, object.id, { name: "Code", slug: "code", type: "text" });
    const duplicate = await expectStatus<ErrorBody>(409, `/crm/objects/${object.id}/fields`, {
      method: "POST",
      key,
      json: { name: "Code 2", slug: "code", type: "text" },
    });
    expect(duplicate.error.code).toBe("conflict");
    await expectStatus(404, "/crm/objects/obj_unknown000000/fields", { method: "POST", key, json: { name: "X", type: "text" } });
  });

  it("update name, required, unique and default; system fields only their name", async () => {
    const { key, object, sales } = await customType();
    const field = await createField(key, object.id, { name: "Budget", type: "number" });
    const { field: updated } = await expectStatus<{ field: Field }>(200, `/crm/fields/${field.id}`, {
      method: "PATCH",
      key,
      json: { name: "Annual budget", isRequired: true, defaultValue: 1000 },
    });
    expect(updated).toMatchObject({
      name: "Annual budget",
      isRequired: true,
      defaultValue: 1000,
      slug: field.slug,
      type: "number",
    });
    await expectStatus(400, `/crm/fields/${field.id}`, { method: "PATCH", key, json: { defaultValue: "lots" } });
    await expectStatus(400, `/crm/fields/${field.id}`, { method: "PATCH", key, json: { type: "text" } });
    await expectStatus(400, `/crm/fields/${field.id}`, { method: "PATCH", key, json: { slug: "other" } });

    const [people] = await objectTypesOf(key, sales.id);
    const email = (await fieldsOf(key, people?.id as string)).find((candidate) => candidate.slug === "email") as Field;
    const refused = await expectStatus<ErrorBody>(409, `/crm/fields/${email.id}`, {
      method: "PATCH",
      key,
      json: { isUnique: false },
    });
    expect(refused.error.code).toBe("system_resource");
    await expectStatus(200, `/crm/fields/${email.id}`, { method: "PATCH", key, json: { name: "E-mail" } });
    await expectStatus(200, `/crm/fields/${email.id}`, { method: "PATCH", key, json: { name: "Email" } });
    const deleted = await expectStatus<ErrorBody>(409, `/crm/fields/${email.id}`, { method: "DELETE", key });
    expect(deleted.error.code).toBe("system_resource");
  });

  it("are deleted with their options, values, relations and every mention in saved views", async () => {
    const { key, object, sales } = await customType();
    const stage = await createField(key, object.id, {
      name: "Phase",
      type: "select",
      options: [{ value: "open" }, { value: "won" }, { value: "lost" }],
    });
    const size = await createField(key, object.id, { name: "Size", type: "number" });
    const [people] = await objectTypesOf(key, sales.id);
    const contact = await createField(key, object.id, { name: "Contact", type: "relation", relationObjectTypeId: people?.id });
    const [open, won, lost] = stage.options as [FieldOption, FieldOption, FieldOption];
    const board = await createView(key, object.id, {
      name: "Board",
      type: "kanban",
      kanbanFieldDefinitionId: stage.id,
      kanbanWinOptionIds: [won.id],
      kanbanLossOptionIds: [lost.id],
      config: {
        columns: [{ fieldDefinitionId: stage.id }, { fieldDefinitionId: size.id }, { fieldDefinitionId: contact.id }],
        filter: {
          op: "and",
          conditions: [
            { fieldDefinitionId: stage.id, operator: "in", value: ["open", "won"] },
            { fieldDefinitionId: size.id, operator: "gt", value: 10 },
          ],
        },
        sorts: [
          { fieldDefinitionId: stage.id, direction: "asc" },
          { fieldDefinitionId: size.id, direction: "desc" },
        ],
        groupBy: stage.id,
      },
    });
    await storeRecord({ id: "rec_fielddel00001", workspaceId: sales.id, objectTypeId: object.id }, [
      { fieldDefinitionId: stage.id, text: "open" },
      { fieldDefinitionId: size.id, number: 12 },
      { fieldDefinitionId: contact.id, target: "rec_someone00001" },
    ]);
    expect(open.value).toBe("open");

    await expectStatus(200, `/crm/fields/${stage.id}`, { method: "DELETE", key });
    await expectStatus(200, `/crm/fields/${contact.id}`, { method: "DELETE", key });
    const { fieldOptions, recordValues } = regional;
    expect(await countRows("us", fieldOptions, eq(fieldOptions.fieldDefinitionId, stage.id))).toBe(0);
    expect(await countRows("us", recordValues, inArray(recordValues.fieldDefinitionId, [stage.id, contact.id]))).toBe(0);
    expect(await countRows("us", recordValues, eq(recordValues.fieldDefinitionId, size.id))).toBe(1);
    const { view } = await expectStatus<{ view: Record<string, unknown> }>(200, `/crm/views/${board.id}`, { key });
    expect(view).toMatchObject({
      type: "table",
      kanbanWinOptionIds: [],
      kanbanLossOptionIds: [],
      config: {
        columns: [{ fieldDefinitionId: size.id }],
        filter: { op: "and", conditions: [{ fieldDefinitionId: size.id, operator: "gt", value: 10 }] },
        sorts: [{ fieldDefinitionId: size.id, direction: "desc" }],
        groupBy: null,
      },
    });
    expect(view).not.toHaveProperty("kanbanFieldDefinitionId");
    expect((await fieldsOf(key, object.id)).map((field) => field.id)).not.toContain(stage.id);
    await expectStatus(404, `/crm/fields/${stage.id}`, { method: "DELETE", key });
  });

  it("are reordered by a permutation of the current set, and nothing else", async () => {
    const { key, object, sales } = await customType();
    const extra = await createField(key, object.id, { name: "Extra", type: "text" });
    const fields = await fieldsOf(key, object.id);
    const ids = fields.map((field) => field.id);
    const reversed = [...ids].reverse();
    const body = await expectStatus<{ fieldDefinitionIds: string[] }>(200, `/crm/objects/${object.id}/fields/reorder`, {
      method: "POST",
      key,
      json: { fieldDefinitionIds: reversed },
    });
    expect(body.fieldDefinitionIds).toEqual(reversed);
    expect((await fieldsOf(key, object.id)).map((field) => field.id)).toEqual(reversed);
    const [people] = await objectTypesOf(key, sales.id);
    const foreign = (await fieldsOf(key, people?.id as string))[0]?.id as string;
    for (const fieldDefinitionIds of [[extra.id], [...ids, foreign], [...ids.slice(0, -1), foreign], [...ids, ids[0]]]) {
      await expectStatus(400, `/crm/objects/${object.id}/fields/reorder`, { method: "POST", key, json: { fieldDefinitionIds } });
    }
    await expectStatus(400, `/crm/objects/${object.id}/fields/reorder`, {
      method: "POST",
      key,
      json: { fieldDefinitionIds: [] },
    });
  });

  it("are managed by admins and owners only", async () => {
    const { object } = await customType();
    const { bob, carol } = await cast();
    for (const key of [bob.apiKey, carol.apiKey]) {
      const error = await expectStatus<ErrorBody>(403, `/crm/objects/${object.id}/fields`, {
        method: "POST",
        key,
        json: { name: "X", type: "text" },
      });
      expect(error.error.code).toBe("forbidden");
      expect(await fieldsOf(key, object.id)).toHaveLength(1);
    }
  });
});

describe("field options", () => {
  it("are added to select fields, one default at most per single-select", async () => {
    const { key, object } = await customType();
    const tier = await createField(key, object.id, {
      name: "Tier",
      type: "select",
      options: [{ value: "gold", isDefault: true }],
    });
    const { option } = await expectStatus<{ option: FieldOption }>(201, `/crm/fields/${tier.id}/options`, {
      method: "POST",
      key,
      json: { value: "silver", label: "Silver", color: "#c0c0c0", isDefault: true },
    });
    expect(option).toEqual({
      id: expect.stringMatching(/^opt_/),
      fieldDefinitionId: tier.id,
      value: "silver",
      label: "Silver",
      order: 1,
      isDefault: true,
      isActive: true,
      color: "#c0c0c0",
    });
    const options = (await fieldsOf(key, object.id)).find((field) => field.id === tier.id)?.options ?? [];
    expect(options.filter((candidate) => candidate.isDefault).map((candidate) => candidate.value)).toEqual(["silver"]);
    const duplicate = await expectStatus<ErrorBody>(409, `/crm/fields/${tier.id}/options`, {
      method: "POST",
      key,
      json: { value: "gold" },
    });
    expect(duplicate.error.code).toBe("conflict");
    const text = await createField(key, object.id, { name: "Plain", type: "text" });
    await expectStatus(400, `/crm/fields/${text.id}/options`, { method: "POST", key, json: { value: "x" } });
  });

  it("update value, label, color, default and active state; a new value follows onto records", async () => {
    const { key, object, sales } = await customType();
    const tier = await createField(key, object.id, {
      name: "Tier",
      type: "select",
      options: [{ value: "gold", isDefault: true }, { value: "silver" }],
    });
    const [gold, silver] = tier.options as [FieldOption, FieldOption];
    await storeRecord({ id: "rec_optrename001", workspaceId: sales.id, objectTypeId: object.id }, [
      { fieldDefinitionId: tier.id, text: "gold" },
    ]);
    const path = (option: FieldOption) => `/crm/fields/${tier.id}/options/${option.id}`;
    const { option } = await expectStatus<{ option: FieldOption }>(200, path(gold), {
      method: "PATCH",
      key,
      json: { value: "platinum", label: "Platinum", color: "#e5e4e2" },
    });
    expect(option).toMatchObject({ value: "platinum", label: "Platinum", color: "#e5e4e2", isDefault: true });
    expect(
      await regionDb("us")
        .select({ valueText: regional.recordValues.valueText })
        .from(regional.recordValues)
        .where(eq(regional.recordValues.recordId, "rec_optrename001")),
    ).toEqual([{ valueText: "platinum" }]);

    await expectStatus(200, path(silver), { method: "PATCH", key, json: { isDefault: true } });
    let options = (await fieldsOf(key, object.id)).find((field) => field.id === tier.id)?.options ?? [];
    expect(options.map((candidate) => [candidate.value, candidate.isDefault])).toEqual([
      ["platinum", false],
      ["silver", true],
    ]);
    await expectStatus(200, path(silver), { method: "PATCH", key, json: { isActive: false } });
    options = (await fieldsOf(key, object.id)).find((field) => field.id === tier.id)?.options ?? [];
    expect(options.find((candidate) => candidate.id === silver.id)).toMatchObject({ isActive: false, isDefault: false });

    await expectStatus(409, path(silver), { method: "PATCH", key, json: { value: "platinum" } });
    await expectStatus(400, path(silver), { method: "PATCH", key, json: { isActive: false, isDefault: true } });
    await expectStatus(400, path(silver), { method: "PATCH", key, json: { fieldDefinitionId: tier.id } });
    await expectStatus(404, `/crm/fields/${tier.id}/options/opt_unknown000000`, { method: "PATCH", key, json: { label: "X" } });
    const other = await createField(key, object.id, { name: "Other", type: "select", options: [{ value: "x" }] });
    await expectStatus(404, `/crm/fields/${other.id}/options/${gold.id}`, { method: "PATCH", key, json: { label: "X" } });
  });
});
