import { describe, expect, it } from "vitest";
import { toApiError } from "../packages/contracts/src/http-errors";
import { createField, createObjectType, type ErrorBody, unique } from "./crm";
import { call, cast } from "./stack";

/**
 * Unique names and slugs under concurrent creations (contract fix 8 of issue 11): the pre-checks
 * pass for every racer, the database's unique index refuses all but one, and that refusal is a
 * 409 `conflict`, never a 500.
 */

const racers = 6;

/** Sends the same creation `racers` times at once; returns the statuses and the error bodies. */
async function race(path: string, key: string, json: Record<string, unknown>) {
  const responses = await Promise.all(Array.from({ length: racers }, () => call(path, { method: "POST", key, json })));
  const bodies = await Promise.all(responses.map(async (response) => (await response.json()) as ErrorBody));
  return { statuses: responses.map((response) => response.status).sort(), errors: bodies.filter((body) => body.error) };
}

function expectOneWinner(result: Awaited<ReturnType<typeof race>>) {
  expect(result.statuses).toEqual([201, ...Array(racers - 1).fill(409)]);
  for (const body of result.errors) expect(body.error.code).toBe("conflict");
}

describe("concurrent creations of the same unique name", () => {
  it("object type slugs: exactly one 201, the rest 409 conflict", async () => {
    const { alice, sales } = await cast();
    const slug = `racing_${unique()}`;
    expectOneWinner(
      await race("/crm/objects", alice.apiKey, { workspaceId: sales.id, nameSingular: "Racer", namePlural: "Racers", slug }),
    );
  });

  it("field slugs and option values: exactly one 201, the rest 409 conflict", async () => {
    const { alice, sales } = await cast();
    const object = await createObjectType(alice.apiKey, sales.id);
    expectOneWinner(await race(`/crm/objects/${object.id}/fields`, alice.apiKey, { name: "Racing field", type: "text" }));
    const select = await createField(alice.apiKey, object.id, { name: "Tier", type: "select", options: [{ value: "gold" }] });
    expectOneWinner(await race(`/crm/fields/${select.id}/options`, alice.apiKey, { value: "silver" }));
  });
});

describe("the unique-constraint mapping", () => {
  it("turns the database's refusal, also as the cause of a driver error, into 409 conflict naming the field", () => {
    const refusal = new Error(
      "D1_ERROR: UNIQUE constraint failed: field_definitions.object_type_id, field_definitions.slug: SQLITE_CONSTRAINT",
    );
    const wrapped = new Error("Failed query: insert into field_definitions ... params: secret-value", { cause: refusal });
    for (const error of [refusal, wrapped]) {
      const apiError = toApiError(error);
      expect(apiError.code).toBe("conflict");
      expect(apiError.status).toBe(409);
      expect(apiError.message).toBe("Another field definition has the same slug in the same object type");
      expect(apiError.details).toEqual({ resource: "fieldDefinition", field: "slug" });
      expect(apiError.message).not.toContain("secret-value");
    }
    expect(toApiError(new Error("CHECK constraint failed: x")).code).toBe("internal_error");
  });
});
