import { describe, expect, it } from "vitest";
import { inboxWorkspace } from "./inbox";
import { clients, structured } from "./mcp";
import { call } from "./stack";

/**
 * `contains`, `not_contains` and `starts_with` take any fragment on e-mail, phone, URL and domain
 * fields (DESIGN.md section 6): through `POST /records/query`, saved views and the MCP tool alike.
 */

interface Field {
  id: string;
  slug: string;
}

async function standardTypes() {
  const workspace = await inboxWorkspace();
  const { objects } = (await (
    await call(`/crm/objects?workspaceId=${workspace.workspaceId}`, { key: workspace.key })
  ).json()) as {
    objects: { id: string; slug: string }[];
  };
  const typeId = (slug: string) => objects.find((object) => object.slug === slug)?.id as string;
  const fieldsOf = async (objectTypeId: string) =>
    ((await (await call(`/crm/objects/${objectTypeId}/fields`, { key: workspace.key })).json()) as { data: Field[] }).data;
  const people = typeId("people");
  const companies = typeId("companies");
  const fieldId = (fields: Field[], slug: string) => fields.find((field) => field.slug === slug)?.id as string;
  const [peopleFields, companyFields] = await Promise.all([fieldsOf(people), fieldsOf(companies)]);
  const create = (objectTypeId: string, fields: Record<string, unknown>) =>
    call("/records", { method: "POST", key: workspace.key, json: { objectTypeId, fields } });
  await create(people, { name: "Ada", email: "ada@example.org", phone: "+44 20 7946 0018" });
  await create(people, { name: "Bob", email: "bob@other.example", phone: "+1 415 555 0100" });
  await create(companies, { name: "Example", domain: "example.org" });
  await create(companies, { name: "Other", domain: "other.example" });
  return {
    workspace,
    people,
    companies,
    email: fieldId(peopleFields, "email"),
    phone: fieldId(peopleFields, "phone"),
    domain: fieldId(companyFields, "domain"),
  };
}

const names = async (response: Response) => {
  expect(response.status, await response.clone().text()).toBe(200);
  return ((await response.json()) as { data: { fields: { name: string } }[] }).data.map((record) => record.fields.name).sort();
};

describe("fragment operators on e-mail, phone and domain fields", () => {
  it("match any fragment in POST /records/query and saved views", async () => {
    const { workspace, people, companies, email, phone, domain } = await standardTypes();
    const query = (objectTypeId: string, fieldDefinitionId: string, operator: string, value: string) =>
      call("/records/query", {
        method: "POST",
        key: workspace.key,
        json: { objectTypeId, filter: { op: "and", conditions: [{ fieldDefinitionId, operator, value }] } },
      });
    expect(await names(await query(people, email, "contains", "@EXAMPLE.org"))).toEqual(["Ada"]);
    expect(await names(await query(people, email, "not_contains", "@example.org"))).toEqual(["Bob"]);
    expect(await names(await query(people, email, "starts_with", "bo"))).toEqual(["Bob"]);
    expect(await names(await query(people, phone, "contains", "555"))).toEqual(["Bob"]);
    expect(await names(await query(people, phone, "starts_with", "+44"))).toEqual(["Ada"]);
    expect(await names(await query(companies, domain, "contains", ".org"))).toEqual(["Example"]);
    expect(await names(await query(companies, domain, "starts_with", "oth"))).toEqual(["Other"]);
    // Whole values still for the operators that compare them.
    expect((await query(people, email, "eq", "@example.org")).status).toBe(400);
    expect((await query(people, email, "contains", "")).status).toBe(400);

    const view = await call(`/crm/objects/${people}/views`, {
      method: "POST",
      key: workspace.key,
      json: {
        name: "Example people",
        config: { filter: { op: "and", conditions: [{ fieldDefinitionId: email, operator: "contains", value: "example.org" }] } },
      },
    });
    expect(view.status, await view.clone().text()).toBe(201);
  });

  it("match any fragment through the MCP tool", async () => {
    const { workspace, people, email } = await standardTypes();
    const client = await clients["v2 client at 2026-07-28"](workspace.key);
    const result = await client.callTool({
      name: "records_query",
      arguments: {
        objectTypeId: people,
        filter: { op: "and", conditions: [{ fieldDefinitionId: email, operator: "contains", value: "@example.org" }] },
      },
    });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    const page = structured<{ data: { fields: { name: string } }[] }>(result);
    expect(page.data.map((record) => record.fields.name)).toEqual(["Ada"]);
    await client.close();
  });
});
