import { regional } from "@crm/db";
import { eq, inArray, or } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import {
  createField,
  createObjectType,
  createView,
  type ErrorBody,
  expectStatus,
  fieldsOf,
  objectTypesOf,
  storeRecord,
  unique,
  viewsOf,
} from "./crm";
import { countRows } from "./fixtures";
import { inboxWorkspace } from "./inbox";
import { cast } from "./stack";

describe("system object types", () => {
  it("come with every workspace: people, companies and deals with their fields, options and views", async () => {
    // A workspace of its own: other tests add types to the demo's (they share the stack).
    const { key, workspaceId } = await inboxWorkspace();
    const objects = await objectTypesOf(key, workspaceId);
    expect(objects.map((object) => [object.slug, object.isSystem, object.order])).toEqual([
      ["people", true, 0],
      ["companies", true, 1],
      ["deals", true, 2],
    ]);
    const people = objects[0];
    expect(people).toEqual({
      id: expect.stringMatching(/^obj_/),
      workspaceId,
      slug: "people",
      name: "People",
      nameSingular: "Person",
      namePlural: "People",
      icon: "user",
      color: "#3b82f6",
      isSystem: true,
      isActive: true,
      order: 0,
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
    });
    const [, companies, deals] = objects as [unknown, { id: string }, { id: string }];
    const peopleFields = await fieldsOf(key, people?.id as string);
    expect(peopleFields.find((field) => field.slug === "email")).toMatchObject({ type: "email", isUnique: true, isSystem: true });
    expect(peopleFields.find((field) => field.slug === "name")).toMatchObject({ type: "text", isRequired: true });
    expect(peopleFields.find((field) => field.slug === "company")).toMatchObject({
      type: "relation",
      relationObjectTypeId: companies.id,
    });
    const companyFields = await fieldsOf(key, companies.id);
    expect(companyFields.find((field) => field.slug === "domain")).toMatchObject({ type: "domain", isUnique: true });

    const dealFields = await fieldsOf(key, deals.id);
    const stage = dealFields.find((field) => field.slug === "stage");
    expect(stage?.options?.map((option) => option.value)).toEqual(["lead", "qualified", "proposal", "won", "lost"]);
    expect(stage?.defaultValue).toBe("lead");
    const views = await viewsOf(key, deals.id);
    expect(views.map((view) => [view.type, view.isDefault])).toEqual([
      ["table", true],
      ["kanban", false],
    ]);
    const kanban = views[1];
    const option = (value: string) => stage?.options?.find((candidate) => candidate.value === value)?.id;
    expect(kanban).toMatchObject({
      kanbanFieldDefinitionId: stage?.id,
      kanbanWinOptionIds: [option("won")],
      kanbanLossOptionIds: [option("lost")],
    });
  });

  it("cannot be deleted or deactivated, but can be renamed", async () => {
    const { alice, sales } = await cast();
    const [people] = await objectTypesOf(alice.apiKey, sales.id);
    const deleted = await expectStatus<ErrorBody>(409, `/crm/objects/${people?.id}`, { method: "DELETE", key: alice.apiKey });
    expect(deleted.error.code).toBe("system_resource");
    const deactivated = await expectStatus<ErrorBody>(409, `/crm/objects/${people?.id}`, {
      method: "PATCH",
      key: alice.apiKey,
      json: { isActive: false },
    });
    expect(deactivated.error.code).toBe("system_resource");
    const renamed = await expectStatus<{ object: { icon: string } }>(200, `/crm/objects/${people?.id}`, {
      method: "PATCH",
      key: alice.apiKey,
      json: { icon: "users" },
    });
    expect(renamed.object.icon).toBe("users");
    await expectStatus(200, `/crm/objects/${people?.id}`, { method: "PATCH", key: alice.apiKey, json: { icon: "user" } });
  });
});

describe("custom object types", () => {
  it("are created with a required name field and a default table view", async () => {
    const { alice, sales } = await cast();
    const suffix = unique();
    const { object } = await expectStatus<{
      object: { id: string; slug: string; isSystem: boolean; order: number; icon: string };
    }>(201, "/crm/objects", {
      method: "POST",
      key: alice.apiKey,
      json: {
        workspaceId: sales.id,
        nameSingular: "Vendor Contact",
        namePlural: `Vendor Contacts ${suffix}`,
        icon: "truck",
        color: "#123abc",
      },
    });
    expect(object).toMatchObject({ slug: `vendor_contacts_${suffix}`, isSystem: false, icon: "truck" });
    expect(object.order).toBeGreaterThanOrEqual(3);
    const fields = await fieldsOf(alice.apiKey, object.id);
    expect(fields.map((field) => [field.slug, field.type, field.isRequired])).toEqual([["name", "text", true]]);
    const views = await viewsOf(alice.apiKey, object.id);
    expect(views).toHaveLength(1);
    expect(views[0]).toMatchObject({
      type: "table",
      isDefault: true,
      config: { columns: [{ fieldDefinitionId: fields[0]?.id }] },
    });
  });

  it("refuse a slug taken in the workspace, and bad input", async () => {
    const { alice, sales, support } = await cast();
    const slug = `machines_${unique()}`;
    await createObjectType(alice.apiKey, sales.id, { slug });
    const duplicate = await expectStatus<ErrorBody>(409, "/crm/objects", {
      method: "POST",
      key: alice.apiKey,
      json: { workspaceId: sales.id, nameSingular: "Machine", namePlural: "Machines", slug },
    });
    expect(duplicate.error.code).toBe("conflict");
    await createObjectType(alice.apiKey, support.id, { slug }); // another workspace: fine
    for (const json of [
      { workspaceId: sales.id, nameSingular: "", namePlural: "X" },
      { workspaceId: sales.id, nameSingular: "X", namePlural: "Xs", slug: "Not A Slug" },
      { workspaceId: sales.id, nameSingular: "X", namePlural: "Xs", color: "blue" },
      { workspaceId: sales.id, nameSingular: "X".repeat(256), namePlural: "Xs" },
      { workspaceId: "short", nameSingular: "X", namePlural: "Xs" },
      { nameSingular: "X", namePlural: "Xs" },
    ]) {
      const error = await expectStatus<ErrorBody>(400, "/crm/objects", { method: "POST", key: alice.apiKey, json });
      expect(error.error.details?.[0]?.path).toMatch(/^body\./);
    }
  });

  it("are managed by admins and owners only; viewers and members read", async () => {
    const { alice, bob, carol, acme, sales, support } = await cast();
    for (const key of [bob.apiKey, carol.apiKey]) {
      const error = await expectStatus<ErrorBody>(403, "/crm/objects", {
        method: "POST",
        key,
        json: { workspaceId: sales.id, nameSingular: "X", namePlural: `Xs ${unique()}` },
      });
      expect(error.error.code).toBe("forbidden");
      expect(await objectTypesOf(key, sales.id)).not.toHaveLength(0);
    }
    await createObjectType(acme.agentApiKey as string, sales.id); // agents pass role checks
    const outside = await expectStatus<ErrorBody>(403, `/crm/objects?workspaceId=${support.id}`, { key: acme.readOnlyKey });
    expect(outside.error.code).toBe("workspace_forbidden");
    expect(await objectTypesOf(alice.apiKey, support.id)).not.toHaveLength(0);
  });

  it("update names, icon, color and isActive; nothing else", async () => {
    const { alice, sales } = await cast();
    const object = await createObjectType(alice.apiKey, sales.id);
    const { object: updated } = await expectStatus<{ object: { namePlural: string; isActive: boolean; updatedAt: number } }>(
      200,
      `/crm/objects/${object.id}`,
      {
        method: "PATCH",
        key: alice.apiKey,
        json: { namePlural: "Suppliers", isActive: false },
      },
    );
    expect(updated).toMatchObject({ namePlural: "Suppliers", isActive: false });
    expect(updated.updatedAt).toBeGreaterThanOrEqual(object.updatedAt);
    for (const json of [
      { slug: "other" },
      { isSystem: true },
      { workspaceId: sales.id },
      { createdAt: 1 },
      { id: "obj_123456" },
    ]) {
      await expectStatus(400, `/crm/objects/${object.id}`, { method: "PATCH", key: alice.apiKey, json });
    }
    await expectStatus(404, "/crm/objects/obj_unknown000000", { method: "PATCH", key: alice.apiKey, json: { namePlural: "X" } });
  });

  it("are deleted permanently with fields, options, records, values, views and relations pointing at them, in one go", async () => {
    const { alice, sales } = await cast();
    const vendors = await createObjectType(alice.apiKey, sales.id);
    const tier = await createField(alice.apiKey, vendors.id, {
      name: "Tier",
      type: "select",
      options: [{ value: "gold" }, { value: "silver" }],
    });
    await createView(alice.apiKey, vendors.id, {
      name: "Gold",
      config: {
        columns: [],
        filter: { op: "and", conditions: [{ fieldDefinitionId: tier.id, operator: "eq", value: "gold" }] },
        sorts: [],
        groupBy: null,
      },
    });
    // Another type relates to vendors, and one of its views shows that relation.
    const orders = await createObjectType(alice.apiKey, sales.id);
    const supplier = await createField(alice.apiKey, orders.id, {
      name: "Supplier",
      type: "relation",
      relationObjectTypeId: vendors.id,
    });
    const ordersView = await createView(alice.apiKey, orders.id, {
      name: "By supplier",
      config: { columns: [{ fieldDefinitionId: supplier.id }], filter: null, sorts: [], groupBy: null },
    });
    await storeRecord({ id: "rec_vendor000001", workspaceId: sales.id, objectTypeId: vendors.id }, [
      { fieldDefinitionId: tier.id, text: "gold" },
    ]);
    await storeRecord({ id: "rec_order0000001", workspaceId: sales.id, objectTypeId: orders.id }, [
      { fieldDefinitionId: supplier.id, target: "rec_vendor000001" },
    ]);

    const { deletedId } = await expectStatus<{ deletedId: string }>(200, `/crm/objects/${vendors.id}`, {
      method: "DELETE",
      key: alice.apiKey,
    });
    expect(deletedId).toBe(vendors.id);
    const { objectTypes, fieldDefinitions, fieldOptions, recordViews, records, recordValues } = regional;
    expect(await countRows("us", objectTypes, eq(objectTypes.id, vendors.id))).toBe(0);
    expect(
      await countRows(
        "us",
        fieldDefinitions,
        or(eq(fieldDefinitions.objectTypeId, vendors.id), eq(fieldDefinitions.id, supplier.id)),
      ),
    ).toBe(0);
    expect(await countRows("us", fieldOptions, eq(fieldOptions.fieldDefinitionId, tier.id))).toBe(0);
    expect(await countRows("us", recordViews, eq(recordViews.objectTypeId, vendors.id))).toBe(0);
    expect(await countRows("us", records, eq(records.objectTypeId, vendors.id))).toBe(0);
    expect(
      await countRows(
        "us",
        recordValues,
        or(inArray(recordValues.fieldDefinitionId, [tier.id, supplier.id]), eq(recordValues.targetRecordId, "rec_vendor000001")),
      ),
    ).toBe(0);
    // The order itself stays; the view no longer mentions the removed relation field.
    expect(await countRows("us", records, eq(records.id, "rec_order0000001"))).toBe(1);
    const view = await expectStatus<{ view: { config: { columns: unknown[] } } }>(200, `/crm/views/${ordersView.id}`, {
      key: alice.apiKey,
    });
    expect(view.view.config.columns).toEqual([]);
    await expectStatus(404, `/crm/objects/${vendors.id}/fields`, { key: alice.apiKey });
  });
});
