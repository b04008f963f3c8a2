import { describe, expect, it } from "vitest";
import { type ErrorBody, expectStatus, objectTypesOf, unique } from "./crm";
import { cast } from "./stack";

/**
 * Keys of record `fields` that are not field slugs but names the JavaScript object model treats
 * specially: each is 400 like any unknown slug, never silently dropped (contract fix 7 of issue 11).
 * Bodies are sent as raw JSON text, since a `__proto__` key does not survive an object literal.
 */

const specialKeys = ["__proto__", "constructor", "toString", "hasOwnProperty"];

async function people() {
  const { alice, sales } = await cast();
  const objects = await objectTypesOf(alice.apiKey, sales.id);
  return { key: alice.apiKey, people: objects.find((object) => object.slug === "people")?.id as string };
}

const send = (method: string, path: string, key: string, body: string) =>
  expectStatus<ErrorBody>(400, path, { method, key, body, headers: { "content-type": "application/json" } });

const fieldsWith = (specialKey: string) => `{"name":"Ada ${unique()}",${JSON.stringify(specialKey)}:{"name":"Mallory"}}`;

const expectUnknownField = (error: ErrorBody, specialKey: string) => {
  expect(error.error.code).toBe("invalid_request");
  expect(error.error.details).toContainEqual({ path: `body.fields.${specialKey}`, message: "Not a field of this object type" });
};

describe("record fields keyed by a name that is not a field slug", () => {
  it("are refused on creation, update and assert", async () => {
    const { key, people: objectTypeId } = await people();
    const { record } = await expectStatus<{ record: { id: string } }>(201, "/records", {
      method: "POST",
      key,
      json: { objectTypeId, fields: { name: "Target" } },
    });
    for (const specialKey of specialKeys) {
      const fields = fieldsWith(specialKey);
      expectUnknownField(
        await send("POST", "/records", key, `{"objectTypeId":"${objectTypeId}","fields":${fields}}`),
        specialKey,
      );
      expectUnknownField(await send("PATCH", `/records/${record.id}`, key, `{"fields":${fields}}`), specialKey);
      const assertion = `{"objectTypeId":"${objectTypeId}","fields":${fieldsWith(specialKey).replace("{", `{"email":"${unique()}@example.com",`)}}`;
      expectUnknownField(await send("PUT", "/records?matchingField=email", key, assertion), specialKey);
    }
    const unchanged = await expectStatus<{ record: { fields: Record<string, unknown> } }>(200, `/records/${record.id}`, { key });
    expect(unchanged.record.fields.name).toBe("Target");
  });

  it("are refused in a query filter", async () => {
    const { key, people: objectTypeId } = await people();
    const condition = `{"fieldDefinitionId":"fld_000000000000","operator":"is_empty","__proto__":{"operator":"eq"}}`;
    for (const filter of [`{"op":"and","conditions":[${condition}]}`, `{"op":"and","conditions":[],"__proto__":{"op":"or"}}`]) {
      const error = await send("POST", "/records/query", key, `{"objectTypeId":"${objectTypeId}","filter":${filter}}`);
      expect(error.error.details?.map((detail) => detail.path)).toContainEqual(
        expect.stringMatching(/^body\.filter\..*__proto__$/),
      );
    }
  });
});
