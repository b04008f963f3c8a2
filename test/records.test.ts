import { env } from "cloudflare:test";
import { regional } from "@crm/db";
import { and, desc, eq, fillPlaceholders, like } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { beforeAll, describe, expect, it } from "vitest";
import { pageStatement } from "../workers/api/src/domain/records/query";
import { recordFields } from "../workers/api/src/domain/records/store";
import { createField, createObjectType, type ErrorBody, expectStatus, type Field, fieldsOf, objectTypesOf, unique } from "./crm";
import { countRows, createKey, createMember, createOrganization, outboxCount } from "./fixtures";
import { call, cast } from "./stack";

interface RecordBody {
  id: string;
  workspaceId: string;
  objectTypeId: string;
  fields: Record<string, unknown>;
  createdBy: string;
  createdAt: number;
  updatedAt: number;
}

interface Page {
  data: RecordBody[];
  pagination: { cursor: string | null; hasMore: boolean };
}

let key: string;
let people: { id: string };
let companies: { id: string };
let peopleFields: Field[];

beforeAll(async () => {
  const { alice, sales } = await cast();
  key = alice.apiKey;
  const objects = await objectTypesOf(key, sales.id);
  people = objects.find((object) => object.slug === "people") as { id: string };
  companies = objects.find((object) => object.slug === "companies") as { id: string };
  peopleFields = await fieldsOf(key, people.id);
});

const create = (objectTypeId: string, fields: Record<string, unknown>, status = 201, headers: Record<string, string> = {}) =>
  expectStatus<{ record: RecordBody } & ErrorBody>(status, "/records", {
    method: "POST",
    key,
    json: { objectTypeId, fields },
    headers,
  });

describe("creating records", () => {
  it("validates and normalizes values, applies defaults and answers every field", async () => {
    const email = `Ada.${unique()}@Example.COM `;
    const company = (
      await create(companies.id, { name: "Analytical Engines", domain: `https://www.engines-${unique()}.co.uk/about` })
    ).record;
    expect(company.fields.domain).toMatch(/^engines-[a-z0-9]{8}\.co\.uk$/);
    const { record } = await create(people.id, { name: "Ada Lovelace", email, phone: "+44 20 7946 0000", company: company.id });
    expect(record).toEqual({
      id: expect.stringMatching(/^rec_/),
      workspaceId: company.workspaceId,
      objectTypeId: people.id,
      fields: {
        name: "Ada Lovelace",
        email: email.trim().toLowerCase(),
        phone: "+44 20 7946 0000",
        job_title: null,
        company: company.id,
      },
      createdBy: expect.stringMatching(/^usr_/),
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
    });
    expect((await expectStatus<{ record: RecordBody }>(200, `/records/${record.id}`, { key })).record).toEqual(record);
    expect(await outboxCount("record.created", record.id)).toBe(1);

    const deals = (await objectTypesOf(key, company.workspaceId))[2] as { id: string };
    const deal = (await create(deals.id, { name: "Difference engine", amount: 1200.5, close_date: "2027-03-01" })).record;
    expect(deal.fields).toMatchObject({ stage: "lead", amount: 1200.5, close_date: "2027-03-01", company: null });
  });

  it("reads a record back byte for byte as the record queries answer it, and only where the key reaches", async () => {
    const { acme, alice, support } = await cast();
    const name = `Byte Works ${unique()}`;
    const { record } = await create(companies.id, { name, industry: "Engines" });
    const read = await call(`/records/${record.id}`, { key });
    expect(read.status).toBe(200);
    // The query's page is built by the shared response shaping; the single read must not drift from it.
    const nameField = (await fieldsOf(key, companies.id)).find((field) => field.slug === "name") as Field;
    const page = await expectStatus<Page>(200, "/records/query", {
      method: "POST",
      key,
      json: {
        objectTypeId: companies.id,
        filter: { op: "and", conditions: [{ fieldDefinitionId: nameField.id, operator: "eq", value: name }] },
      },
    });
    expect(await read.text()).toBe(JSON.stringify({ record: page.data[0] }));

    // A key of the same user limited to another workspace: 403, as for every resource outside its reach.
    const limited = await createKey({ organizationId: acme.id, ownerId: alice.id, workspaceIds: [support.id] });
    const refused = await expectStatus<ErrorBody>(403, `/records/${record.id}`, { key: limited.key });
    expect(refused.error.code).toBe("workspace_forbidden");
  });

  it("queries only object types the caller reaches: another organization's on the same shard is 404, outside the key or membership 403", async () => {
    const { acme, alice, support } = await cast();
    const query = (status: number, objectTypeId: string, withKey = key) =>
      expectStatus<ErrorBody>(status, "/records/query", { method: "POST", key: withKey, json: { objectTypeId } });
    // A neighbour on Acme's shard: the object type's row is in the same database, and still not theirs.
    const neighbour = await createOrganization({ region: "us", shard: 1 });
    expect((await query(404, people.id, neighbour.key)).error.message).toBe("Object type not found");
    await expectStatus(404, `/records?objectTypeId=${people.id}`, { key: neighbour.key });
    expect((await query(404, "obj_unknown0000000000000000", key)).error.message).toBe("Object type not found");
    const limited = await createKey({ organizationId: acme.id, ownerId: alice.id, workspaceIds: [support.id] });
    expect((await query(403, people.id, limited.key)).error.code).toBe("workspace_forbidden");
    const supportOnly = await createMember({ organizationId: acme.id, region: "us", workspaceId: support.id, role: "member" });
    expect((await query(403, people.id, supportOnly.key)).error.code).toBe("workspace_forbidden");
    expect((await query(200, people.id, key)).error).toBeUndefined();
  });

  it("refuses bad input with a detail naming each offending field", async () => {
    const problems = async (fields: Record<string, unknown>) =>
      ((await create(people.id, fields, 400)).error.details ?? []).map((detail) => detail.path).sort();
    expect(await problems({ email: "a@b.co" })).toEqual(["body.fields.name"]);
    expect(await problems({ name: "X", nickname: "x", id: "rec_123456", createdAt: 1 })).toEqual([
      "body.fields.createdAt",
      "body.fields.id",
      "body.fields.nickname",
    ]);
    expect(await problems({ name: "X", email: "not-an-email", phone: "call me", company: 42 })).toEqual([
      "body.fields.company",
      "body.fields.email",
      "body.fields.phone",
    ]);
    expect(await problems({ name: null })).toEqual(["body.fields.name"]);
    expect(await problems({ name: "X", company: "rec_doesnotexist0" })).toEqual(["body.fields.company"]);
    const { dave, globex } = await cast();
    const [globexPeople] = await objectTypesOf(dave.apiKey, globex.workspaces[0]?.id as string);
    const foreign = await expectStatus<{ record: RecordBody }>(201, "/records", {
      method: "POST",
      key: dave.apiKey,
      json: { objectTypeId: globexPeople?.id, fields: { name: "Globex person" } },
    });
    const [, globexCompanies] = await objectTypesOf(dave.apiKey, globex.workspaces[0]?.id as string);
    const globexCompany = await expectStatus<{ record: RecordBody }>(201, "/records", {
      method: "POST",
      key: dave.apiKey,
      json: { objectTypeId: globexCompanies?.id, fields: { name: "Globex" } },
    });
    expect(await problems({ name: "X", company: globexCompany.record.id })).toEqual(["body.fields.company"]);
    expect(await problems({ name: "X", company: foreign.record.id })).toEqual(["body.fields.company"]);
    await expectStatus(400, "/records", { method: "POST", key, json: { objectTypeId: people.id, fields: {} } });
    await expectStatus(400, "/records", { method: "POST", key, json: { objectTypeId: people.id } });
    await expectStatus(404, "/records", { method: "POST", key, json: { objectTypeId: globexPeople?.id, fields: { name: "X" } } });
  });

  it("checks every field type of a custom object type", async () => {
    const { sales } = await cast();
    const gadgets = await createObjectType(key, sales.id);
    await createField(key, gadgets.id, { name: "Count", type: "number", defaultValue: 1 });
    await createField(key, gadgets.id, { name: "Live", type: "checkbox" });
    await createField(key, gadgets.id, { name: "Seen", type: "timestamp" });
    await createField(key, gadgets.id, { name: "Site", type: "url" });
    await createField(key, gadgets.id, {
      name: "Kind",
      type: "select",
      options: [{ value: "a", isDefault: true }, { value: "b" }],
    });
    const tags = await createField(key, gadgets.id, {
      name: "Tags",
      type: "multiselect",
      options: [{ value: "x" }, { value: "y" }, { value: "old" }],
    });
    await createField(key, gadgets.id, { name: "Links", type: "relation", relationObjectTypeId: companies.id, isMultiple: true });
    await createField(key, gadgets.id, { name: "Owner", type: "user" });
    const oldOption = tags.options?.find((option) => option.value === "old");
    await expectStatus(200, `/crm/fields/${tags.id}/options/${oldOption?.id}`, {
      method: "PATCH",
      key,
      json: { isActive: false },
    });
    const { alice } = await cast();
    const company = (await create(companies.id, { name: "Linked" })).record;
    const { record } = await create(gadgets.id, {
      name: "G",
      live: true,
      seen: 1767571200000,
      site: "https://example.com/a",
      tags: ["y", "x", "y"],
      links: [company.id],
      owner: alice.id,
    });
    expect(record.fields).toEqual({
      name: "G",
      count: 1,
      live: true,
      seen: 1767571200000,
      site: "https://example.com/a",
      kind: "a",
      tags: ["y", "x"],
      links: [company.id],
      owner: alice.id,
    });
    const bad = await create(
      gadgets.id,
      {
        name: "G",
        count: "1",
        live: "yes",
        seen: 1.5,
        site: "ftp://x",
        kind: "c",
        tags: ["old"],
        links: company.id,
        owner: "usr_nobody00000",
      },
      400,
    );
    expect(bad.error.details?.map((detail) => detail.path).sort()).toEqual(
      [
        "body.fields.count",
        "body.fields.kind",
        "body.fields.links",
        "body.fields.live",
        "body.fields.seen",
        "body.fields.site",
        "body.fields.tags.0",
      ].sort(),
    );
    const owner = await create(gadgets.id, { name: "G", owner: "usr_nobody00000" }, 400);
    expect(owner.error.details?.map((detail) => detail.path)).toEqual(["body.fields.owner"]);
  });
});

describe("identity resolution", () => {
  it("blocks a creation whose unique value matches a live record, after trimming and case-folding", async () => {
    const email = `grace.${unique()}@example.com`;
    const first = (await create(people.id, { name: "Grace Hopper", email })).record;
    const conflict = await create(people.id, { name: "G. Hopper", email: `  ${email.toUpperCase()} ` }, 409);
    expect(conflict.error.code).toBe("identity_conflict");
    expect(conflict.error.details).toEqual({ matches: [{ recordId: first.id, field: "email", value: email }] });
    expect(await countRows("us", regional.recordValues, eq(regional.recordValues.valueText, email))).toBe(1);
    // Updating another record onto the same identity is refused too; its own value is fine.
    const other = (await create(people.id, { name: "Other" })).record;
    const update = await expectStatus<ErrorBody>(409, `/records/${other.id}`, {
      method: "PATCH",
      key,
      json: { fields: { email } },
    });
    expect(update.error.code).toBe("identity_conflict");
    await expectStatus(200, `/records/${first.id}`, { method: "PATCH", key, json: { fields: { email: email.toUpperCase() } } });
    // A deleted record's identity is free again.
    await expectStatus(200, `/records/${first.id}`, { method: "DELETE", key });
    await create(people.id, { name: "Grace again", email });
  });

  it("holds under concurrent creations: exactly one wins", async () => {
    const email = `race.${unique()}@example.com`;
    const responses = await Promise.all(
      Array.from({ length: 5 }, () =>
        call("/records", { method: "POST", key, json: { objectTypeId: people.id, fields: { name: "Racer", email } } }),
      ),
    );
    expect(responses.map((response) => response.status).sort()).toEqual([201, 409, 409, 409, 409]);
  });

  it("asserts: PUT updates the matching record or creates one", async () => {
    const email = `assert.${unique()}@example.com`;
    const created = await expectStatus<{ record: RecordBody }>(201, "/records?matchingField=email", {
      method: "PUT",
      key,
      json: { objectTypeId: people.id, fields: { name: "New", email } },
    });
    const updated = await expectStatus<{ record: RecordBody }>(200, "/records?matchingField=email", {
      method: "PUT",
      key,
      json: { objectTypeId: people.id, fields: { job_title: "CTO", email: ` ${email.toUpperCase()}` } },
    });
    expect(updated.record.id).toBe(created.record.id);
    expect(updated.record.fields).toMatchObject({ name: "New", job_title: "CTO", email });
    await expectStatus(400, "/records?matchingField=name", {
      method: "PUT",
      key,
      json: { objectTypeId: people.id, fields: { name: "X" } },
    });
    await expectStatus(400, "/records?matchingField=email", {
      method: "PUT",
      key,
      json: { objectTypeId: people.id, fields: { name: "X" } },
    });
    await expectStatus(400, "/records", { method: "PUT", key, json: { objectTypeId: people.id, fields: { name: "X" } } });
  });
});

describe("idempotent creation", () => {
  it("returns the first response to a retry and emits one record.created", async () => {
    const idempotencyKey = `create-${unique()}`;
    const fields = { name: "Katherine Johnson", email: `kj.${unique()}@example.com` };
    const first = await create(people.id, fields, 201, { "idempotency-key": idempotencyKey });
    const retry = await call("/records", {
      method: "POST",
      key,
      json: { objectTypeId: people.id, fields },
      headers: { "idempotency-key": idempotencyKey },
    });
    expect(retry.status).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(((await retry.json()) as { record: RecordBody }).record).toEqual(first.record);
    expect(await countRows("us", regional.recordValues, eq(regional.recordValues.valueText, fields.email))).toBe(1);
    expect(await outboxCount("record.created", first.record.id)).toBe(1);
  });
});

describe("updating and deleting", () => {
  it("changes the given fields, reports changedFields, and deletes softly", async () => {
    const { record } = await create(people.id, { name: "Mary", job_title: "Engineer" });
    const { record: updated } = await expectStatus<{ record: RecordBody }>(200, `/records/${record.id}`, {
      method: "PATCH",
      key,
      json: { fields: { job_title: null, phone: "+1 555 0100", name: "Mary" } },
    });
    expect(updated.fields).toMatchObject({ name: "Mary", job_title: null, phone: "+1 555 0100" });
    const { eventOutbox } = regional;
    const [updateEvent] = await drizzle(env.US_DB_1)
      .select({ payload: eventOutbox.payload })
      .from(eventOutbox)
      .where(and(eq(eventOutbox.type, "record.updated"), like(eventOutbox.payload, `%"id":"${record.id}"%`)))
      .orderBy(desc(eventOutbox.createdAt))
      .limit(1);
    const payload = updateEvent?.payload as string;
    expect(JSON.parse(payload).data.changedFields.sort()).toEqual(["job_title", "phone"]);
    await expectStatus(400, `/records/${record.id}`, { method: "PATCH", key, json: { fields: { name: null } } });
    await expectStatus(400, `/records/${record.id}`, { method: "PATCH", key, json: { fields: {} } });
    await expectStatus(400, `/records/${record.id}`, {
      method: "PATCH",
      key,
      json: { objectTypeId: people.id, fields: { name: "X" } },
    });

    expect(await expectStatus(200, `/records/${record.id}`, { method: "DELETE", key })).toEqual({ deletedId: record.id });
    expect(await outboxCount("record.deleted", record.id)).toBe(1);
    await expectStatus(404, `/records/${record.id}`, { key });
    await expectStatus(404, `/records/${record.id}`, { method: "PATCH", key, json: { fields: { name: "Back" } } });
    await expectStatus(404, `/records/${record.id}`, { method: "DELETE", key });
    const listed = await expectStatus<Page>(200, `/records?objectTypeId=${people.id}&limit=100`, { key });
    expect(listed.data.map((item) => item.id)).not.toContain(record.id);
  });

  it("lets members write and viewers only read", async () => {
    const { bob, carol } = await cast();
    const { record } = await expectStatus<{ record: RecordBody }>(201, "/records", {
      method: "POST",
      key: bob.apiKey,
      json: { objectTypeId: people.id, fields: { name: "By Bob" } },
    });
    const refused = await expectStatus<ErrorBody>(403, "/records", {
      method: "POST",
      key: carol.apiKey,
      json: { objectTypeId: people.id, fields: { name: "By Carol" } },
    });
    expect(refused.error.code).toBe("forbidden");
    await expectStatus(403, `/records/${record.id}`, { method: "PATCH", key: carol.apiKey, json: { fields: { name: "X" } } });
    await expectStatus(200, `/records/${record.id}`, { key: carol.apiKey });
  });
});

describe("listing and querying", () => {
  async function scores() {
    const { sales } = await cast();
    const scored = await createObjectType(key, sales.id);
    const score = await createField(key, scored.id, { name: "Score", type: "number" });
    const band = await createField(key, scored.id, {
      name: "Band",
      type: "select",
      options: [{ value: "high" }, { value: "low" }],
    });
    return { scored, score, band };
  }

  /** Every page of a sorted (and `filter`ed) query, following cursors; `afterPage` runs after each page. */
  async function queryAll(
    objectTypeId: string,
    sort: { fieldDefinitionId: string; direction: "asc" | "desc" },
    limit: number,
    { filter, afterPage }: { filter?: unknown; afterPage?: (page: Page) => unknown } = {},
  ) {
    const seen: RecordBody[] = [];
    let cursor: string | null = null;
    do {
      const page: Page = await expectStatus<Page>(200, "/records/query", {
        method: "POST",
        key,
        json: { objectTypeId, ...(filter ? { filter } : {}), sorts: [sort], limit, ...(cursor ? { cursor } : {}) },
      });
      seen.push(...page.data);
      cursor = page.pagination.cursor;
      await afterPage?.(page);
    } while (cursor);
    return seen;
  }

  it("pages through a query in sort order without duplicates or gaps while records are inserted", async () => {
    const { scored, score, band } = await scores();
    const values = [5, 3, null, 9, 3, 1, 7, null, 3, 8];
    const ids = new Map<string, number | null>();
    for (const value of values) {
      const { record } = await create(scored.id, {
        name: `n${value}`,
        score: value,
        band: value !== null && value >= 5 ? "high" : "low",
      });
      ids.set(record.id, value);
    }
    // Another client inserts after every page; rows existing at the start still come exactly once.
    const seen = await queryAll(scored.id, { fieldDefinitionId: score.id, direction: "desc" }, 3, {
      afterPage: () => create(scored.id, { name: "late", score: 4, band: "low" }),
    });
    const original = seen.filter((record) => ids.has(record.id));
    expect(original.map((record) => record.fields.score)).toEqual([9, 8, 7, 5, 3, 3, 3, 1, null, null]);
    expect(new Set(seen.map((record) => record.id)).size).toBe(seen.length);

    const filtered = await expectStatus<Page>(200, "/records/query", {
      method: "POST",
      key,
      json: {
        objectTypeId: scored.id,
        filter: {
          op: "and",
          conditions: [
            { fieldDefinitionId: band.id, operator: "eq", value: "high" },
            { fieldDefinitionId: score.id, operator: "lt", value: 9 },
          ],
        },
        sorts: [{ fieldDefinitionId: score.id, direction: "asc" }],
      },
    });
    expect(filtered.data.map((record) => record.fields.score)).toEqual([5, 7, 8]);
    const empty = await expectStatus<Page>(200, "/records/query", {
      method: "POST",
      key,
      json: {
        objectTypeId: scored.id,
        filter: { op: "or", conditions: [{ fieldDefinitionId: score.id, operator: "is_empty" }] },
      },
    });
    expect(empty.data).toHaveLength(2);
  });

  it("pages ascending with unset values first and ties broken by id, across page boundaries", async () => {
    const { scored, score } = await scores();
    const values = [null, 2, null, 2, 1, null, 2];
    for (const value of values) await create(scored.id, { name: `a${value}`, score: value });
    const collect = (direction: "asc" | "desc") => queryAll(scored.id, { fieldDefinitionId: score.id, direction }, 2);
    const ascending = await collect("asc");
    expect(ascending.map((record) => record.fields.score)).toEqual([null, null, null, 1, 2, 2, 2]);
    const ids = ascending.map((record) => record.id);
    expect(new Set(ids).size).toBe(values.length);
    // Within equal values, ids ascend; descending reverses the whole order exactly.
    expect(ids.slice(0, 3)).toEqual([...ids.slice(0, 3)].sort());
    expect((await collect("desc")).map((record) => record.id)).toEqual([...ids].reverse());
  });

  it("pages a filtered sort exactly: ties and unset values in order, deleted matches skipped, resuming after the last row", async () => {
    const { scored, score, band } = await scores();
    const values = [4, null, 4, 2, 4, null, 7, 2, 9, 4];
    const created: { id: string; score: number | null; high: boolean }[] = [];
    for (const [i, value] of values.entries()) {
      const high = i % 3 !== 1;
      const { record } = await create(scored.id, { name: `f${i}`, score: value, band: high ? "high" : "low" });
      created.push({ id: record.id, score: value, high });
    }
    // A deleted match between the others: it must not take a place on any page.
    const deleted = created.find((record) => record.high && record.score === 4) as (typeof created)[number];
    await expectStatus(200, `/records/${deleted.id}`, { method: "DELETE", key });
    const live = created.filter((record) => record.high && record !== deleted);
    for (const direction of ["asc", "desc"] as const) {
      // The order the query promises: unset values first ascending (last descending), ties by id in the sort's direction.
      const rank = (record: (typeof live)[number]) =>
        [record.score === null ? Number.NEGATIVE_INFINITY : record.score, record.id] as const;
      const expected = [...live].sort((a, b) => {
        const [x, y] = [rank(a), rank(b)];
        const order = x[0] === y[0] ? x[1].localeCompare(y[1]) : x[0] - y[0];
        return direction === "asc" ? order : -order;
      });
      const seen = await queryAll(scored.id, { fieldDefinitionId: score.id, direction }, 2, {
        filter: { op: "and", conditions: [{ fieldDefinitionId: band.id, operator: "eq", value: "high" }] },
        afterPage: (page) => expect(page.data.length).toBe(page.pagination.cursor ? 2 : page.data.length),
      });
      expect(seen.map((record) => record.id)).toEqual(expected.map((record) => record.id));
    }
  });

  it("takes a list of 100 values beside other conditions and a sort (D1 binds at most 100 parameters)", async () => {
    const { scored, score } = await scores();
    const nameField = (await fieldsOf(key, scored.id)).find((field) => field.slug === "name") as Field;
    for (const value of [3, 1, 2]) await create(scored.id, { name: `n${value}`, score: value });
    const names = Array.from({ length: 100 }, (_, i) => `n${i}`);
    const page = await expectStatus<Page>(200, "/records/query", {
      method: "POST",
      key,
      json: {
        objectTypeId: scored.id,
        filter: {
          op: "and",
          conditions: [
            { fieldDefinitionId: nameField.id, operator: "in", value: names },
            { fieldDefinitionId: score.id, operator: "not_in", value: names.map((_, i) => i + 100) },
          ],
        },
        sorts: [{ fieldDefinitionId: score.id, direction: "desc" }],
      },
    });
    expect(page.data.map((record) => record.fields.name)).toEqual(["n3", "n2", "n1"]);
  });

  it("lists through a saved view's filter and sorts, and refuses bad queries", async () => {
    const { scored, score, band } = await scores();
    for (const value of [2, 6, 4]) await create(scored.id, { name: `v${value}`, score: value, band: value > 3 ? "high" : "low" });
    const view = await expectStatus<{ view: { id: string } }>(201, `/crm/objects/${scored.id}/views`, {
      method: "POST",
      key,
      json: {
        name: "High first",
        config: {
          filter: { op: "and", conditions: [{ fieldDefinitionId: band.id, operator: "in", value: ["high"] }] },
          sorts: [{ fieldDefinitionId: score.id, direction: "desc" }],
        },
      },
    });
    const listed = await expectStatus<Page>(200, `/records?objectTypeId=${scored.id}&viewId=${view.view.id}`, { key });
    expect(listed.data.map((record) => record.fields.score)).toEqual([6, 4]);
    const all = await expectStatus<Page>(200, `/records?objectTypeId=${scored.id}`, { key });
    expect(all.data.map((record) => record.fields.score)).toEqual([2, 6, 4]);
    await expectStatus(400, `/records?objectTypeId=${people.id}&viewId=${view.view.id}`, { key });
    const bad = async (json: Record<string, unknown>) =>
      expectStatus<ErrorBody>(400, "/records/query", { method: "POST", key, json: { objectTypeId: scored.id, ...json } });
    await bad({ filter: { op: "and", conditions: [{ fieldDefinitionId: score.id, operator: "contains", value: 1 }] } });
    await bad({ sorts: [{ fieldDefinitionId: peopleFields[0]?.id, direction: "asc" }] });
    await bad({ limit: 101 });
    const page = await expectStatus<Page>(200, "/records/query", {
      method: "POST",
      key,
      json: { objectTypeId: scored.id, limit: 1 },
    });
    const cursor = page.pagination.cursor as string;
    expect((await bad({ limit: 1, cursor, sorts: [{ fieldDefinitionId: score.id, direction: "asc" }] })).error.code).toBe(
      "invalid_cursor",
    );
    expect((await bad({ cursor: `${cursor}x` })).error.code).toBe("invalid_cursor");
  });

  it("tests a sorted query's filter on the walked index entry, reading records only for its matches", async () => {
    const { scored, score, band } = await scores();
    const walked = 20;
    for (let value = 1; value <= walked; value++)
      await create(scored.id, { name: `w${value}`, score: value, band: value <= 2 ? "high" : "low" });
    const fields = await recordFields(drizzle(env.US_DB_1), scored.id);
    const { statement, values } = pageStatement(
      {
        objectTypeId: scored.id,
        fields,
        filter: { op: "and", conditions: [{ fieldDefinitionId: band.id, operator: "eq", value: "high" }] },
        sorts: [{ fieldDefinitionId: score.id, direction: "desc" }],
        limit: 3,
      },
      3,
    );
    const { results, meta } = await env.US_DB_1.prepare(statement.text)
      .bind(...fillPlaceholders([...statement.params], values))
      .all<{ k0: number }>();
    expect(results.map((row) => row.k0)).toEqual([2, 1]);
    // The walk reads its entries and the two matches their record and values (33 rows); looking up
    // every walked record before testing the filter read one more row per entry (51).
    expect(meta.rows_read).toBeLessThan(2 * walked);
  });

  it("serves filters and sorts on any field from an index", async () => {
    const { scored, score, band } = await scores();
    const fields = await recordFields(drizzle(env.US_DB_1), scored.id);
    const plans = async (query: Parameters<typeof pageStatement>[0]) => {
      const { statement, values } = pageStatement(query, query.limit + 1);
      // The compiled statement's own text: drizzle's query builder cannot ask for a query plan.
      const { results } = await env.US_DB_1.prepare(`explain query plan ${statement.text}`)
        .bind(...fillPlaceholders([...statement.params], values))
        .all<{ detail: string }>();
      return results.map((row) => row.detail).join("\n");
    };
    const sorted = await plans({
      objectTypeId: scored.id,
      fields,
      filter: { op: "and", conditions: [{ fieldDefinitionId: band.id, operator: "eq", value: "high" }] },
      sorts: [{ fieldDefinitionId: score.id, direction: "desc" }],
      limit: 50,
    });
    expect(sorted).toMatch(/USING (COVERING )?INDEX record_values_field_number/);
    expect(sorted).not.toMatch(/TEMP B-TREE/);
    expect(sorted).not.toMatch(/SCAN (r|records)\b(?! USING)/);
    // Each record's values come from the index that keeps them side by side, never from the table.
    expect(sorted).toMatch(/SEARCH vj USING COVERING INDEX record_values_record/);
    const unsorted = await plans({ objectTypeId: scored.id, fields, filter: null, sorts: [], limit: 50 });
    expect(unsorted).toMatch(/USING INDEX records_object_type_created/);
    expect(unsorted).not.toMatch(/TEMP B-TREE/);
  });
});
