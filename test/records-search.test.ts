import { newId } from "@crm/db";
import { describe, expect, it } from "vitest";
import { recordMatches, searchPhrases } from "../workers/api/src/domain/records/search";
import { createField, createObjectType, errorOf, expectStatus, unique } from "./crm";
import { createMember, regionDb, shardDatabase } from "./fixtures";
import { crmWorkspace } from "./inbox";
import { rawToolCall, structured } from "./mcp";
import { call, cast } from "./stack";

interface CrmRecord {
  id: string;
  objectTypeId: string;
  fields: Record<string, unknown>;
}

interface Hit {
  record: CrmRecord;
  objectTypeId: string;
  matchedFields: string[];
}

interface Page {
  data: Hit[];
  pagination: { cursor: string | null; hasMore: boolean };
}

type Workspace = Awaited<ReturnType<typeof crmWorkspace>>;

const create = async (workspace: Workspace, objectTypeId: string, fields: Record<string, unknown>) =>
  (
    await expectStatus<{ record: CrmRecord }>(201, "/records", {
      method: "POST",
      key: workspace.key,
      json: { objectTypeId, fields },
    })
  ).record;

const search = (workspace: Workspace, q: string, extra = "") =>
  expectStatus<Page>(200, `/records/search?workspaceId=${workspace.workspaceId}&q=${encodeURIComponent(q)}${extra}`, {
    key: workspace.key,
  });

const foundIds = async (workspace: Workspace, q: string, extra = "") =>
  (await search(workspace, q, extra)).data.map((hit) => hit.record.id);

describe("GET /records/search", () => {
  it("finds by a prefix or fragment of every searchable field type", async () => {
    const workspace = await crmWorkspace();
    const acme = await create(workspace, workspace.companiesId, { name: "Acme Corporation", domain: "acme.example" });
    const anna = await create(workspace, workspace.peopleId, {
      name: "Anna Schmidt",
      email: "anna.schmidt@acme.example",
      phone: "+1 555-0100",
      job_title: "Head of Procurement",
      company: acme.id,
    });
    const website = await createField(workspace.key, workspace.peopleId, { name: "Website", type: "url" });
    const tier = await createField(workspace.key, workspace.peopleId, {
      name: "Tier",
      type: "select",
      options: [{ value: "vip", label: "Very important" }],
    });
    const topics = await createField(workspace.key, workspace.peopleId, {
      name: "Topics",
      type: "multiselect",
      options: [
        { value: "ml", label: "Machine learning" },
        { value: "db", label: "Databases" },
      ],
    });
    const bert = await create(workspace, workspace.peopleId, {
      name: "Bert Jansen",
      [website.slug]: "https://www.widgets.example/team/bert",
      [tier.slug]: "vip",
      [topics.slug]: ["ml", "db"],
    });

    expect(await foundIds(workspace, "ann")).toEqual([anna.id]);
    expect(await foundIds(workspace, "SCHM")).toEqual([anna.id]);
    expect(new Set(await foundIds(workspace, "acme.ex"))).toEqual(new Set([anna.id, acme.id]));
    expect(await foundIds(workspace, "anna.schmidt@acme")).toEqual([anna.id]);
    expect(await foundIds(workspace, "555-01")).toEqual([anna.id]);
    expect(await foundIds(workspace, "procure")).toEqual([anna.id]);
    expect(await foundIds(workspace, "widgets.ex")).toEqual([bert.id]);
    expect(await foundIds(workspace, "very import")).toEqual([bert.id]);
    expect(await foundIds(workspace, "databa")).toEqual([bert.id]);
    // The option's value is not what people read: only labels are searched.
    expect(await foundIds(workspace, "vip")).toEqual([]);
    // Every word must match, each in any field of the record: "that Anna from Acme".
    expect(await foundIds(workspace, "anna widgets")).toEqual([]);
    const annaFromAcme = await search(workspace, "anna acme");
    expect(annaFromAcme.data.map((hit) => [hit.record.id, hit.matchedFields])).toEqual([[anna.id, ["name", "email"]]]);
    // What the user types is never query syntax.
    expect(await foundIds(workspace, '"ann*):')).toEqual([anna.id]);
    expect(await foundIds(workspace, "-ann NEAR")).toEqual([]);

    const page = await search(workspace, "acme", `&objectTypeIds=${workspace.peopleId}`);
    const { record } = await expectStatus<{ record: CrmRecord }>(200, `/records/${anna.id}`, { key: workspace.key });
    expect(page.data).toEqual([{ record, objectTypeId: workspace.peopleId, matchedFields: ["email"] }]);
  });

  it("pages each hit once while another workspace of the shard writes records (issue 38)", async () => {
    const [workspace, neighbour] = [await crmWorkspace(), await crmWorkspace()];
    const word = `quokka${unique()}`;
    for (let i = 0; i < 4; i++) await create(workspace, workspace.peopleId, { name: `${word} ${i}` });
    const expected = await foundIds(workspace, word);
    const walked: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Page = await search(workspace, word, `&limit=1${cursor ? `&cursor=${cursor}` : ""}`);
      walked.push(...page.data.map((hit) => hit.record.id));
      cursor = page.pagination.cursor;
      // Another tenant's record with the word: how often the shard holds it changed bm25's weights.
      await create(neighbour, neighbour.peopleId, { name: `${word} elsewhere` });
    } while (cursor && walked.length <= expected.length);
    expect(walked).toEqual(expected);
  });

  it("ranks a match in a record's name before one in its other fields, and pages in that order", async () => {
    const workspace = await crmWorkspace();
    const notes = await createField(workspace.key, workspace.peopleId, { name: "Notes", type: "text" });
    const mention = await create(workspace, workspace.peopleId, {
      name: "Carl Weber",
      [notes.slug]: "Met at the fair with Zelda and her team; Zelda asked about pricing for the whole department",
    });
    const named = await create(workspace, workspace.peopleId, { name: "Zelda Fitzgerald" });
    const page = await search(workspace, "zeld");
    expect(page.data.map((hit) => [hit.record.id, hit.matchedFields])).toEqual([
      [named.id, ["name"]],
      [mention.id, [notes.slug]],
    ]);
    const first = await search(workspace, "zeld", "&limit=1");
    expect(first.data.map((hit) => hit.record.id)).toEqual([named.id]);
    expect(first.pagination.hasMore).toBe(true);
    const second = await search(workspace, "zeld", `&limit=1&cursor=${first.pagination.cursor}`);
    expect(second.data.map((hit) => hit.record.id)).toEqual([mention.id]);
    expect(second.pagination).toEqual({ cursor: null, hasMore: false });
    // A cursor of another search is refused.
    const other = await call(`/records/search?workspaceId=${workspace.workspaceId}&q=carl&cursor=${first.pagination.cursor}`, {
      key: workspace.key,
    });
    expect(other.status).toBe(400);
    expect((await errorOf(other)).code).toBe("invalid_cursor");
  });

  it("follows every write at once: updates, batches, deletes, deleted fields and object types, renamed labels", async () => {
    const workspace = await crmWorkspace();
    const person = await create(workspace, workspace.peopleId, { name: "Olga Petrova", email: "olga@kremlin.example" });
    await expectStatus(200, `/records/${person.id}`, {
      method: "PATCH",
      key: workspace.key,
      json: { fields: { name: "Olga Ivanova" } },
    });
    expect(await foundIds(workspace, "petrova")).toEqual([]);
    expect(await foundIds(workspace, "ivanova")).toEqual([person.id]);
    expect(await foundIds(workspace, "kremlin")).toEqual([person.id]);

    const { results } = await expectStatus<{ results: { record: CrmRecord }[] }>(200, "/records/batch", {
      method: "POST",
      key: workspace.key,
      json: {
        objectTypeId: workspace.peopleId,
        operation: "upsert",
        matchingField: "email",
        records: [
          { fields: { email: "olga@kremlin.example", name: "Olga Smirnova" } },
          { fields: { name: "Ivan Orlov", email: "ivan@orlov.example" } },
        ],
      },
    });
    expect(await foundIds(workspace, "ivanova")).toEqual([]);
    expect(await foundIds(workspace, "smirnova")).toEqual([person.id]);
    const ivan = results[1]?.record as CrmRecord;
    expect(await foundIds(workspace, "orlov")).toEqual([ivan.id]);

    await expectStatus(200, `/records/${ivan.id}`, { method: "DELETE", key: workspace.key });
    expect(await foundIds(workspace, "orlov")).toEqual([]);

    const code = await createField(workspace.key, workspace.peopleId, { name: "Code name", type: "text" });
    const status = await createField(workspace.key, workspace.peopleId, {
      name: "Status",
      type: "select",
      options: [{ value: "active", label: "Currently engaged" }],
    });
    await expectStatus(200, `/records/${person.id}`, {
      method: "PATCH",
      key: workspace.key,
      json: { fields: { [code.slug]: "Nightingale", [status.slug]: "active" } },
    });
    expect(await foundIds(workspace, "nighting")).toEqual([person.id]);
    await expectStatus(200, `/crm/fields/${code.id}`, { method: "DELETE", key: workspace.key });
    expect(await foundIds(workspace, "nighting")).toEqual([]);

    const option = status.options?.[0];
    await expectStatus(200, `/crm/fields/${status.id}/options/${option?.id}`, {
      method: "PATCH",
      key: workspace.key,
      json: { label: "Dormant account" },
    });
    expect(await foundIds(workspace, "currently")).toEqual([]);
    expect(await foundIds(workspace, "dormant")).toEqual([person.id]);

    const vendors = await createObjectType(workspace.key, workspace.workspaceId);
    const vendor = await create(workspace, vendors.id, { name: "Quetzal Supplies" });
    expect(await foundIds(workspace, "quetzal")).toEqual([vendor.id]);
    await expectStatus(200, `/crm/objects/${vendors.id}`, { method: "DELETE", key: workspace.key });
    expect(await foundIds(workspace, "quetzal")).toEqual([]);
  });

  it("never finds another organization's records, even in the same database", async () => {
    const workspace = await crmWorkspace();
    const neighbour = await crmWorkspace();
    expect(neighbour.shard).toBe(workspace.shard);
    const word = `Xylo${unique()}`;
    await create(neighbour, neighbour.peopleId, { name: `${word} Neighbour` });
    const own = await create(workspace, workspace.peopleId, { name: `${word} Own` });
    expect(await foundIds(workspace, word)).toEqual([own.id]);
    const foreign = await call(`/records/search?workspaceId=${neighbour.workspaceId}&q=${word}`, { key: workspace.key });
    expect(foreign.status).toBe(404);
    const foreignType = await call(
      `/records/search?workspaceId=${workspace.workspaceId}&q=${word}&objectTypeIds=${neighbour.peopleId}`,
      { key: workspace.key },
    );
    expect(foreignType.status).toBe(404);
  });

  it("answers another organization's workspace exactly as a workspace that does not exist", async () => {
    const { acme, sales } = await cast();
    const stranger = await crmWorkspace();
    expect(stranger.shard).toBe(acme.shard);
    const refusal = async (workspaceId: string) => {
      const response = await call(`/records/search?workspaceId=${workspaceId}&q=acme`, { key: stranger.key });
      const { requestId: _, ...error } = await errorOf(response);
      return { status: response.status, error };
    };
    const foreign = await refusal(sales.id);
    expect(foreign).toEqual(await refusal(newId("ws")));
    expect(foreign).toMatchObject({ status: 404, error: { code: "not_found", message: "Workspace not found" } });
  });

  it("bounds the match itself by the caller's organization: another one's workspace matches nothing and reads no index", async () => {
    const workspace = await crmWorkspace();
    const stranger = await crmWorkspace();
    const word = `Quill${unique()}`;
    const many = 40;
    await expectStatus(200, "/records/batch", {
      method: "POST",
      key: workspace.key,
      json: {
        objectTypeId: workspace.peopleId,
        operation: "create",
        records: Array.from({ length: many }, (_, i) => ({ fields: { name: `${word} ${i}` } })),
      },
    });
    const db = regionDb("us", workspace.shard);
    // The statement the search runs, called as it would be for a caller of `organizationId`.
    const matched = async (organizationId: string) => {
      const matches = recordMatches(db, { organizationId, workspaceId: workspace.workspaceId }, searchPhrases(word));
      const { sql, params } = db.select().from(matches).toSQL();
      return shardDatabase("us", workspace.shard)
        .prepare(sql)
        .bind(...params)
        .all();
    };
    expect((await matched(workspace.organizationId)).results).toHaveLength(many);
    const foreign = await matched(stranger.organizationId);
    expect(foreign.results).toEqual([]);
    // The organization's hold on the workspace is tested before the FTS5 index is opened: reading
    // the matches and dropping them would read a row per match at least.
    expect(foreign.meta.rows_read).toBeLessThan(many);
  });

  it("is open to whoever may read the workspace's records, viewers too, and to no one else; also as records_search", async () => {
    const workspace = await crmWorkspace();
    const person = await create(workspace, workspace.peopleId, { name: "Yvonne Quist" });
    const viewer = await createMember({
      organizationId: workspace.organizationId,
      region: "us",
      workspaceId: workspace.workspaceId,
      role: "viewer",
    });
    expect((await search({ ...workspace, key: viewer.key }, "yvonne")).data.map((hit) => hit.record.id)).toEqual([person.id]);
    // A member of another workspace of the organization cannot reach this one.
    const otherWorkspace = await crmWorkspace();
    const outsider = await createMember({
      organizationId: workspace.organizationId,
      region: "us",
      workspaceId: otherWorkspace.workspaceId,
      role: "member",
    });
    const refused = await call(`/records/search?workspaceId=${workspace.workspaceId}&q=yvonne`, { key: outsider.key });
    expect(refused.status).toBe(403);
    const tool = structured<Page>(
      await rawToolCall(workspace.key, "records_search", { workspaceId: workspace.workspaceId, q: "quis" }),
    );
    expect(tool.data.map((hit) => hit.record.id)).toEqual([person.id]);
  });

  it("refuses malformed queries with 400", async () => {
    const workspace = await crmWorkspace();
    for (const query of [
      `workspaceId=${workspace.workspaceId}`,
      `workspaceId=${workspace.workspaceId}&q=`,
      `workspaceId=${workspace.workspaceId}&q=${encodeURIComponent("*** !!")}`,
      `workspaceId=${workspace.workspaceId}&q=${"a".repeat(201)}`,
      `workspaceId=${workspace.workspaceId}&q=ann&objectTypeIds=nope`,
      `workspaceId=${workspace.workspaceId}&q=ann&objectTypeIds=${workspace.peopleId},`,
      `workspaceId=${workspace.workspaceId}&q=ann&limit=0`,
      `workspaceId=${workspace.workspaceId}&q=ann&cursor=forged`,
      `workspaceId=${workspace.workspaceId}&q=ann&sort=name`,
      "q=ann",
    ]) {
      const response = await call(`/records/search?${query}`, { key: workspace.key });
      expect(response.status, query).toBe(400);
    }
  });
});
