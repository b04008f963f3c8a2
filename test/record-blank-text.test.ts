import { describe, expect, it } from "vitest";
import { trimmedCodePoints } from "../workers/api/src/domain/records/blank-text";
import { type ErrorBody, expectStatus } from "./crm";
import { crmWorkspace } from "./inbox";
import { rawToolCall, structured, toolError } from "./mcp";
import { call } from "./stack";

/**
 * Text that is empty after trimming is no value (issue 38): a required text field refuses it on every
 * path that writes records, and `is_empty` finds the optional text fields that hold it.
 */

interface CrmRecord {
  id: string;
  fields: Record<string, unknown>;
}

type Workspace = Awaited<ReturnType<typeof crmWorkspace>>;

/** Blank after `String.prototype.trim`: nothing, spaces, and whitespace SQLite's own `trim` keeps (tab, no-break and ideographic spaces, a line separator). */
const blanks = ["", "   ", "\t\u00a0\u3000\u2028 \n"];
/** The refusal of a blank `name`, the field named as the surface names inputs (`body.fields.name` on REST, `fields.name` for MCP). */
const blankRefusal = (path = "body.fields.name") => ({
  code: "invalid_request",
  details: [{ path, message: "Required; blank text is no value" }],
});

const create = async (workspace: Workspace, fields: Record<string, unknown>) =>
  (
    await expectStatus<{ record: CrmRecord }>(201, "/records", {
      method: "POST",
      key: workspace.key,
      json: { objectTypeId: workspace.peopleId, fields },
    })
  ).record;

async function refusal(response: Response) {
  expect(response.status).toBe(400);
  return ((await response.json()) as ErrorBody).error;
}

describe("blank text in a required field", () => {
  it("is refused by POST, PATCH and PUT /records, naming the field, and leaves the record as it was", async () => {
    const workspace = await crmWorkspace();
    const record = await create(workspace, { name: "Ada Lovelace", email: "ada@example.com" });
    for (const name of blanks) {
      const created = await call("/records", {
        method: "POST",
        key: workspace.key,
        json: { objectTypeId: workspace.peopleId, fields: { name } },
      });
      expect(await refusal(created), JSON.stringify(name)).toMatchObject(blankRefusal());
      const patched = await call(`/records/${record.id}`, { method: "PATCH", key: workspace.key, json: { fields: { name } } });
      expect(await refusal(patched), JSON.stringify(name)).toMatchObject(blankRefusal());
      // PUT, creating a record or updating the one its unique e-mail matches.
      for (const email of [`new-${crypto.randomUUID()}@example.com`, "ada@example.com"]) {
        const asserted = await call("/records?matchingField=email", {
          method: "PUT",
          key: workspace.key,
          json: { objectTypeId: workspace.peopleId, fields: { name, email } },
        });
        expect(await refusal(asserted), `${JSON.stringify(name)} ${email}`).toMatchObject(blankRefusal());
      }
    }
    const read = await expectStatus<{ record: CrmRecord }>(200, `/records/${record.id}`, { key: workspace.key });
    expect(read.record.fields.name).toBe("Ada Lovelace");
    // Text around the blanks is a value, kept as given.
    expect((await create(workspace, { name: "  Ada  " })).fields.name).toBe("  Ada  ");
  });

  it("fails alone in POST /records/batch, creating or updating, with the error the item gets alone", async () => {
    const workspace = await crmWorkspace();
    const record = await create(workspace, { name: "Grace Hopper" });
    const other = await create(workspace, { name: "Other" });
    const alone = await refusal(
      await call("/records", {
        method: "POST",
        key: workspace.key,
        json: { objectTypeId: workspace.peopleId, fields: { name: " " } },
      }),
    );
    const { requestId: _, ...aloneError } = alone as typeof alone & { requestId: string };
    for (const [operation, items] of [
      ["create", [{ fields: { name: " " } }, { fields: { name: "Kept" } }]],
      [
        "update",
        [
          { id: record.id, fields: { name: " " } },
          { id: other.id, fields: { job_title: "Admiral" } },
        ],
      ],
    ] as const) {
      const response = await call("/records/batch", {
        method: "POST",
        key: workspace.key,
        json: { objectTypeId: workspace.peopleId, operation, records: items },
      });
      expect(response.status).toBe(200);
      const { results } = (await response.json()) as { results: { status: number; error?: { requestId: string } }[] };
      expect(results.map((result) => result.status)).toEqual([400, operation === "create" ? 201 : 200]);
      const [item] = results as unknown as [{ error: { requestId: string } }];
      const { requestId: _item, ...itemError } = item.error;
      expect(itemError).toEqual(aloneError);
    }
    const read = await expectStatus<{ record: CrmRecord }>(200, `/records/${record.id}`, { key: workspace.key });
    expect(read.record.fields.name).toBe("Grace Hopper");
  });

  it("is refused by the MCP tools records_create and records_update, as by the REST operations", async () => {
    const workspace = await crmWorkspace();
    const record = await create(workspace, { name: "Ada Lovelace" });
    const created = toolError(
      await rawToolCall(workspace.key, "records_create", {
        objectTypeId: workspace.peopleId,
        fields: { name: "  " },
        idempotencyKey: crypto.randomUUID(),
      }),
    );
    expect(created.error).toMatchObject(blankRefusal("fields.name"));
    const updated = toolError(
      await rawToolCall(workspace.key, "records_update", { recordId: record.id, fields: { name: "\t" } }),
    );
    expect(updated.error).toMatchObject(blankRefusal("fields.name"));
    const kept = structured<{ record: CrmRecord }>(await rawToolCall(workspace.key, "records_get", { recordId: record.id }));
    expect(kept.record.fields.name).toBe("Ada Lovelace");
  });
});

describe("is_empty on an optional text field", () => {
  it("trims in SQL exactly the characters String.prototype.trim removes", () => {
    const trimmedByJs = Array.from({ length: 0x10000 }, (_, code) => code).filter(
      (code) => String.fromCharCode(code).trim() === "",
    );
    expect(trimmedCodePoints).toEqual(trimmedByJs);
  });

  it("finds the records whose text is blank as well as those without one, and is_not_empty the others", async () => {
    const workspace = await crmWorkspace();
    const unset = await create(workspace, { name: "No title" });
    const blank = await Promise.all(blanks.map((job_title, i) => create(workspace, { name: `Blank ${i}`, job_title })));
    const titled = await create(workspace, { name: "Titled", job_title: " Engineer " });
    const fields = await expectStatus<{ data: { id: string; slug: string }[] }>(
      200,
      `/crm/objects/${workspace.peopleId}/fields?limit=100`,
      { key: workspace.key },
    );
    const jobTitle = fields.data.find((field) => field.slug === "job_title")?.id as string;
    const found = async (operator: "is_empty" | "is_not_empty", sorted: boolean) => {
      const page = await expectStatus<{ data: CrmRecord[] }>(200, "/records/query", {
        method: "POST",
        key: workspace.key,
        json: {
          objectTypeId: workspace.peopleId,
          filter: { op: "and", conditions: [{ fieldDefinitionId: jobTitle, operator }] },
          // Sorted, the filter is a probe beside the sort's index walk; unsorted, beside the type's.
          ...(sorted ? { sorts: [{ fieldDefinitionId: jobTitle, direction: "asc" }] } : {}),
        },
      });
      return new Set(page.data.map((record) => record.id));
    };
    for (const sorted of [false, true]) {
      expect(await found("is_empty", sorted)).toEqual(new Set([unset.id, ...blank.map((record) => record.id)]));
      expect(await found("is_not_empty", sorted)).toEqual(new Set([titled.id]));
    }
  });
});
