import { describe, expect, it } from "vitest";
import {
  createField,
  createObjectType,
  createView,
  type ErrorBody,
  expectStatus,
  type FieldOption,
  fieldsOf,
  objectTypesOf,
  type View,
  viewsOf,
} from "./crm";
import { createMember } from "./fixtures";
import { cast } from "./stack";

async function board() {
  const { alice, sales, acme } = await cast();
  const key = alice.apiKey;
  const object = await createObjectType(key, sales.id);
  const [name] = await fieldsOf(key, object.id);
  const stage = await createField(key, object.id, {
    name: "Phase",
    type: "select",
    options: [{ value: "open" }, { value: "won" }, { value: "lost" }],
  });
  const size = await createField(key, object.id, { name: "Size", type: "number" });
  const tags = await createField(key, object.id, { name: "Tags", type: "multiselect", options: [{ value: "a" }] });
  return {
    key,
    alice,
    sales,
    acme,
    object,
    name: name?.id as string,
    stage,
    size,
    tags,
    options: stage.options as [FieldOption, FieldOption, FieldOption],
  };
}

describe("record views", () => {
  it("are created with a config checked against the fields, and read back with every field", async () => {
    const { key, alice, object, name, stage, size, options } = await board();
    const config = {
      columns: [
        { fieldDefinitionId: name, width: 240 },
        { fieldDefinitionId: size.id, hidden: true },
      ],
      filter: {
        op: "or",
        conditions: [
          { fieldDefinitionId: size.id, operator: "gte", value: 100 },
          { fieldDefinitionId: stage.id, operator: "in", value: ["open", "won"] },
          { fieldDefinitionId: name, operator: "is_not_empty" },
        ],
      },
      sorts: [{ fieldDefinitionId: size.id, direction: "desc" }],
      groupBy: stage.id,
    };
    const view = await createView(key, object.id, {
      name: "Pipeline",
      emoji: "📈",
      type: "kanban",
      kanbanFieldDefinitionId: stage.id,
      kanbanWinOptionIds: [options[1].id],
      kanbanLossOptionIds: [options[2].id],
      config,
    });
    expect(view).toEqual({
      id: expect.stringMatching(/^view_/),
      workspaceId: object.workspaceId,
      objectTypeId: object.id,
      name: "Pipeline",
      type: "kanban",
      isDefault: false,
      config,
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
      emoji: "📈",
      order: 1,
      createdBy: alice.id,
      creator: { id: alice.id, name: alice.name, email: alice.email },
      kanbanFieldDefinitionId: stage.id,
      kanbanWinOptionIds: [options[1].id],
      kanbanLossOptionIds: [options[2].id],
    });
    expect((await expectStatus<{ view: View }>(200, `/crm/views/${view.id}`, { key })).view).toEqual(view);
  });

  it("refuse configs that do not fit the object type", async () => {
    const { key, object, name, stage, size, tags, options } = await board();
    const [people] = await objectTypesOf(key, object.workspaceId);
    const foreignField = (await fieldsOf(key, people?.id as string))[0]?.id;
    const filter = (condition: Record<string, unknown>) => ({ config: { filter: { op: "and", conditions: [condition] } } });
    const cases: [Record<string, unknown>, string][] = [
      [{ config: { columns: [{ fieldDefinitionId: foreignField }] } }, "body.config.columns.0.fieldDefinitionId"],
      [filter({ fieldDefinitionId: name, operator: "gt", value: 3 }), "body.config.filter.conditions.0.operator"],
      [filter({ fieldDefinitionId: size.id, operator: "contains", value: 3 }), "body.config.filter.conditions.0.operator"],
      [filter({ fieldDefinitionId: size.id, operator: "eq", value: "big" }), "body.config.filter.conditions.0.value"],
      [filter({ fieldDefinitionId: size.id, operator: "in", value: 3 }), "body.config.filter.conditions.0.value"],
      [filter({ fieldDefinitionId: stage.id, operator: "eq", value: "unknown" }), "body.config.filter.conditions.0.value"],
      [filter({ fieldDefinitionId: name, operator: "is_empty", value: "x" }), "body.config.filter.conditions.0.value"],
      [filter({ fieldDefinitionId: name, operator: "like", value: "x" }), "body.config.filter.conditions.0.operator"],
      [{ config: { sorts: [{ fieldDefinitionId: tags.id, direction: "asc" }] } }, "body.config.sorts.0.fieldDefinitionId"],
      [{ config: { groupBy: size.id } }, "body.config.groupBy"],
      [{ type: "kanban", kanbanFieldDefinitionId: size.id }, "body.kanbanFieldDefinitionId"],
      [{ type: "kanban" }, "body.kanbanFieldDefinitionId"],
      [
        { type: "kanban", kanbanFieldDefinitionId: stage.id, kanbanWinOptionIds: ["opt_notanoption0"] },
        "body.kanbanWinOptionIds.0",
      ],
      [
        {
          type: "kanban",
          kanbanFieldDefinitionId: stage.id,
          kanbanWinOptionIds: [options[1].id],
          kanbanLossOptionIds: [options[1].id],
        },
        "body.kanbanLossOptionIds",
      ],
      [{ type: "table", kanbanFieldDefinitionId: stage.id }, "body.type"],
      [{ kanbanWinOptionIds: [options[1].id] }, "body.kanbanFieldDefinitionId"],
      [{ type: "gallery" }, "body.type"],
      [{ config: { columns: [], extra: true } }, "body.config.extra"],
    ];
    for (const [body, path] of cases) {
      const error = await expectStatus<ErrorBody>(400, `/crm/objects/${object.id}/views`, {
        method: "POST",
        key,
        json: { name: "V", ...body },
      });
      expect(
        error.error.details?.map((detail) => detail.path),
        JSON.stringify(body),
      ).toContain(path);
    }
  });

  it("are kanban views when created with a kanban field and no type, as the reference's body is; table views without one", async () => {
    const { key, object, stage, options } = await board();
    const kanban = await createView(key, object.id, {
      name: "Board",
      kanbanFieldDefinitionId: stage.id,
      kanbanWinOptionIds: [options[1].id],
      kanbanLossOptionIds: [options[2].id],
    });
    expect(kanban).toMatchObject({
      type: "kanban",
      kanbanFieldDefinitionId: stage.id,
      kanbanWinOptionIds: [options[1].id],
      kanbanLossOptionIds: [options[2].id],
    });
    expect(
      (await createView(key, object.id, { name: "Board too", type: "kanban", kanbanFieldDefinitionId: stage.id })).type,
    ).toBe("kanban");
    const table = await createView(key, object.id, { name: "Table" });
    expect(table.type).toBe("table");

    // PATCH with only the field makes a board of a table; null makes a table of a board.
    const patch = (viewId: string, json: Record<string, unknown>, status = 200) =>
      expectStatus<{ view: View } & ErrorBody>(status, `/crm/views/${viewId}`, { method: "PATCH", key, json });
    expect((await patch(table.id, { kanbanFieldDefinitionId: stage.id })).view).toMatchObject({
      type: "kanban",
      kanbanFieldDefinitionId: stage.id,
    });
    const outcomes = (await patch(table.id, { kanbanWinOptionIds: [options[1].id] })).view;
    expect(outcomes).toMatchObject({ type: "kanban", kanbanWinOptionIds: [options[1].id] });
    // The same field again keeps its win and loss options.
    expect((await patch(table.id, { kanbanFieldDefinitionId: stage.id })).view.kanbanWinOptionIds).toEqual([options[1].id]);
    const unboarded = (await patch(table.id, { kanbanFieldDefinitionId: null })).view;
    expect(unboarded).toMatchObject({ type: "table", kanbanWinOptionIds: [], kanbanLossOptionIds: [] });
    expect(unboarded).not.toHaveProperty("kanbanFieldDefinitionId");
    // An explicit type must agree with the field.
    const disagreeing = await patch(kanban.id, { type: "table", kanbanFieldDefinitionId: stage.id }, 400);
    expect(disagreeing.error.details?.map((detail) => detail.path)).toEqual(["body.type"]);
    await patch(kanban.id, { type: "kanban", kanbanFieldDefinitionId: null }, 400);
  });

  it("keep one default per object type", async () => {
    const { key, object } = await board();
    const [initial] = await viewsOf(key, object.id);
    expect(initial?.isDefault).toBe(true);
    const second = await createView(key, object.id, { name: "Second", isDefault: true });
    expect((await viewsOf(key, object.id)).filter((view) => view.isDefault).map((view) => view.id)).toEqual([second.id]);
    await expectStatus(400, `/crm/views/${second.id}`, { method: "PATCH", key, json: { isDefault: false } });
    await expectStatus(200, `/crm/views/${initial?.id}`, { method: "PATCH", key, json: { isDefault: true } });
    expect((await viewsOf(key, object.id)).filter((view) => view.isDefault).map((view) => view.id)).toEqual([initial?.id]);
    // Deleting the default makes the first remaining view the default.
    await expectStatus(200, `/crm/views/${initial?.id}`, { method: "DELETE", key });
    expect((await viewsOf(key, object.id)).map((view) => [view.id, view.isDefault])).toEqual([[second.id, true]]);
  });

  it("are updated and deleted for good", async () => {
    const { key, object, size, stage } = await board();
    const view = await createView(key, object.id, { name: "Draft" });
    const { view: updated } = await expectStatus<{ view: View }>(200, `/crm/views/${view.id}`, {
      method: "PATCH",
      key,
      json: {
        name: "Final",
        emoji: "✅",
        config: { columns: [{ fieldDefinitionId: size.id }], sorts: [{ fieldDefinitionId: size.id, direction: "asc" }] },
      },
    });
    expect(updated).toMatchObject({
      name: "Final",
      emoji: "✅",
      config: { columns: [{ fieldDefinitionId: size.id }], filter: null, groupBy: null },
    });
    const kanban = await expectStatus<{ view: View }>(200, `/crm/views/${view.id}`, {
      method: "PATCH",
      key,
      json: { type: "kanban", kanbanFieldDefinitionId: stage.id },
    });
    expect(kanban.view.type).toBe("kanban");
    const table = await expectStatus<{ view: View }>(200, `/crm/views/${view.id}`, {
      method: "PATCH",
      key,
      json: { type: "table" },
    });
    expect(table.view).not.toHaveProperty("kanbanFieldDefinitionId");
    await expectStatus(400, `/crm/views/${view.id}`, { method: "PATCH", key, json: { objectTypeId: object.id } });
    expect(await expectStatus<{ deletedId: string }>(200, `/crm/views/${view.id}`, { method: "DELETE", key, json: {} })).toEqual({
      deletedId: view.id,
    });
    await expectStatus(404, `/crm/views/${view.id}`, { key });
    await expectStatus(400, `/crm/views/${view.id}`, { method: "DELETE", key, json: { force: true } });
  });

  it("are reordered by a permutation of the object type's views", async () => {
    const { key, object, sales } = await board();
    await createView(key, object.id, { name: "Two" });
    await createView(key, object.id, { name: "Three" });
    const ids = (await viewsOf(key, object.id)).map((view) => view.id);
    const order = [ids[2], ids[0], ids[1]] as string[];
    expect(
      await expectStatus(200, `/crm/objects/${object.id}/views/reorder`, { method: "POST", key, json: { viewIds: order } }),
    ).toEqual({ viewIds: order });
    expect((await viewsOf(key, object.id)).map((view) => view.id)).toEqual(order);
    const [people] = await objectTypesOf(key, sales.id);
    const foreign = (await viewsOf(key, people?.id as string))[0]?.id as string;
    for (const viewIds of [ids.slice(1), [...ids, foreign], [ids[0], ids[1], foreign], [...ids, ids[0]]]) {
      await expectStatus(400, `/crm/objects/${object.id}/views/reorder`, { method: "POST", key, json: { viewIds } });
    }
  });

  it("are managed by managers and above; members and viewers read them", async () => {
    const { object, acme, sales } = await board();
    const { bob, carol } = await cast();
    for (const key of [bob.apiKey, carol.apiKey]) {
      const error = await expectStatus<ErrorBody>(403, `/crm/objects/${object.id}/views`, {
        method: "POST",
        key,
        json: { name: "Mine" },
      });
      expect(error.error.code).toBe("forbidden");
      expect(await viewsOf(key, object.id)).not.toHaveLength(0);
    }
    const manager = await createMember({ organizationId: acme.id, region: "us", workspaceId: sales.id, role: "manager" });
    const view = await createView(manager.key, object.id, { name: "Manager's" });
    expect(view.createdBy).toBe(manager.userId);
    await expectStatus(200, `/crm/views/${view.id}`, { method: "PATCH", key: manager.key, json: { name: "Renamed" } });
    await expectStatus(403, `/crm/objects/${object.id}/fields`, {
      method: "POST",
      key: manager.key,
      json: { name: "X", type: "text" },
    });
  });
});
