import { describe, expect, it } from "vitest";
import { createField, createObjectType, createView, type ErrorBody, expectStatus } from "./crm";
import { cast } from "./stack";

/** A failed check names a path of the request that was sent (contract fix 10 of issue 11). */

async function scoredType() {
  const { alice, sales } = await cast();
  const key = alice.apiKey;
  const object = await createObjectType(key, sales.id);
  const score = await createField(key, object.id, { name: "Score", type: "number" });
  const tags = await createField(key, object.id, { name: "Tags", type: "multiselect", options: [{ value: "a" }] });
  const band = await createField(key, object.id, { name: "Band", type: "select", options: [{ value: "high" }] });
  return { key, object, score, tags, band };
}

const pathsOf = (error: ErrorBody) => error.error.details?.map((detail) => detail.path);

describe("validation details", () => {
  it("name the query body's own filter and sorts in POST /records/query", async () => {
    const { key, object, score, tags } = await scoredType();
    const error = await expectStatus<ErrorBody>(400, "/records/query", {
      method: "POST",
      key,
      json: {
        objectTypeId: object.id,
        filter: { op: "and", conditions: [{ fieldDefinitionId: score.id, operator: "contains", value: 1 }] },
        sorts: [
          { fieldDefinitionId: score.id, direction: "asc" },
          { fieldDefinitionId: tags.id, direction: "asc" },
        ],
      },
    });
    expect(pathsOf(error)).toEqual(["body.filter.conditions.0.operator", "body.sorts.1.fieldDefinitionId"]);
  });

  it("name the view body's config when a view is saved", async () => {
    const { key, object, tags } = await scoredType();
    const error = await expectStatus<ErrorBody>(400, `/crm/objects/${object.id}/views`, {
      method: "POST",
      key,
      json: { name: "Sorted", config: { sorts: [{ fieldDefinitionId: tags.id, direction: "asc" }] } },
    });
    expect(pathsOf(error)).toEqual(["body.config.sorts.0.fieldDefinitionId"]);
  });

  it("name the viewId parameter when a listed view no longer fits its fields", async () => {
    const { key, object, band } = await scoredType();
    const view = await createView(key, object.id, {
      name: "High",
      config: { filter: { op: "and", conditions: [{ fieldDefinitionId: band.id, operator: "eq", value: "high" }] } },
    });
    // Renaming the option leaves the saved filter on a value the field no longer has.
    const option = band.options?.[0]?.id as string;
    await expectStatus(200, `/crm/fields/${band.id}/options/${option}`, { method: "PATCH", key, json: { value: "top" } });
    const error = await expectStatus<ErrorBody>(400, `/records?objectTypeId=${object.id}&viewId=${view.id}`, { key });
    expect(pathsOf(error)).toEqual(["query.viewId.filter.conditions.0.value"]);
  });
});
