import { catalogue, conditionalResourceOf, type Operation, openApiDocument } from "@crm/contracts";
import { beforeAll, describe, expect, it } from "vitest";
import { storeMessage } from "../workers/api/src/domain/inbox/store-message";
import { createField, createObjectType, createView, errorOf, expectStatus, unique } from "./crm";
import { addPerson, inboundMessage, inboxWorkspace } from "./inbox";
import { rawToolCall, structured, toolError } from "./mcp";
import { call } from "./stack";

/**
 * Conditional requests (DESIGN.md section 2): single-resource GETs answer a strong ETag and 304 for
 * If-None-Match; PATCH, PUT and DELETE take If-Match, 412 with nothing written when it is stale.
 */

type Json = Record<string, unknown>;

async function aTask() {
  const workspace = await inboxWorkspace();
  const personId = await addPerson(workspace.key, workspace.workspaceId, "Pat Person", "pat@customer.example");
  const { task } = await expectStatus<{ task: Json }>(201, `/records/${personId}/tasks`, {
    method: "POST",
    key: workspace.key,
    json: { title: "Call back" },
  });
  return { key: workspace.key, path: `/tasks/${task.id}`, taskId: task.id as string };
}

describe("ETag and If-None-Match", () => {
  it("answers a strong ETag on a single-resource GET, and 304 without a body while it is current", async () => {
    const { key, path } = await aTask();
    const first = await call(path, { key });
    const etag = first.headers.get("etag") as string;
    expect(etag).toMatch(/^"[\w-]{43}"$/);
    expect((await call(path, { key })).headers.get("etag")).toBe(etag);
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, "*"]) {
      const again = await call(path, { key, headers: { "if-none-match": ifNoneMatch } });
      expect(again.status, ifNoneMatch).toBe(304);
      expect(await again.text()).toBe("");
      expect(again.headers.get("etag")).toBe(etag);
    }
    expect((await call(path, { key, headers: { "if-none-match": '"other"' } })).status).toBe(200);
  });

  it("gives the resource after a PATCH the ETag its GET then answers, and a new one whenever it changes", async () => {
    const { key, path } = await aTask();
    const before = (await call(path, { key })).headers.get("etag");
    const patched = await call(path, { method: "PATCH", key, json: { title: "Call back today" } });
    expect(patched.status).toBe(200);
    const after = patched.headers.get("etag");
    expect(after).not.toBe(before);
    expect((await call(path, { key })).headers.get("etag")).toBe(after);
    expect((await call(path, { key, headers: { "if-none-match": before as string } })).status).toBe(200);
  });
});

describe("If-Match", () => {
  it("writes while it names the current ETag, and answers 412 with nothing written once it is stale", async () => {
    const { key, path } = await aTask();
    const etag = (await call(path, { key })).headers.get("etag") as string;
    const first = await call(path, { method: "PATCH", key, json: { title: "First" }, headers: { "if-match": etag } });
    expect(first.status).toBe(200);
    const stale = await call(path, { method: "PATCH", key, json: { title: "Second" }, headers: { "if-match": etag } });
    expect(stale.status).toBe(412);
    expect((await errorOf(stale)).code).toBe("precondition_failed");
    expect(((await (await call(path, { key })).json()) as { task: Json }).task.title).toBe("First");
    // A weak tag never matches for a write; `*` matches whatever is current.
    const current = first.headers.get("etag") as string;
    expect(
      (await call(path, { method: "PATCH", key, json: { title: "W" }, headers: { "if-match": `W/${current}` } })).status,
    ).toBe(412);
    expect((await call(path, { method: "PATCH", key, json: { title: "Any" }, headers: { "if-match": "*" } })).status).toBe(200);
  });

  it("refuses a DELETE with a stale ETag, the resource kept, and deletes with the current one", async () => {
    const { key, path } = await aTask();
    const etag = (await call(path, { key })).headers.get("etag") as string;
    await expectStatus(200, path, { method: "PATCH", key, json: { status: "done" } });
    expect((await call(path, { method: "DELETE", key, headers: { "if-match": etag } })).status).toBe(412);
    const current = (await call(path, { key })).headers.get("etag") as string;
    expect((await call(path, { method: "DELETE", key, headers: { "if-match": current } })).status).toBe(200);
    expect((await call(path, { key })).status).toBe(404);
  });

  it("of two writers holding the same ETag, lets one write and refuses the other", async () => {
    const { key, path } = await aTask();
    const etag = (await call(path, { key })).headers.get("etag") as string;
    await expectStatus(200, path, { method: "PATCH", key, json: { title: "Mine" }, headers: { "if-match": etag } });
    expect((await call(path, { method: "PATCH", key, json: { status: "done" }, headers: { "if-match": etag } })).status).toBe(
      412,
    );
  });
});

describe("If-Match under concurrency", () => {
  it("lets exactly one of eight concurrent PATCHes holding the same ETag write, the others 412", async () => {
    const { key, path } = await aTask();
    const etag = (await call(path, { key })).headers.get("etag") as string;
    const changes = [
      { title: "One" },
      { status: "done" },
      { dueAt: 1_900_000_000_000 },
      { descriptionHtml: "<p>Four</p>" },
      { title: "Five" },
      { status: "in_progress" },
      { dueAt: 1_900_000_000_001 },
      { descriptionHtml: "<p>Eight</p>" },
    ];
    const responses = await Promise.all(
      changes.map((json) => call(path, { method: "PATCH", key, json, headers: { "if-match": etag } })),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([200, 412, 412, 412, 412, 412, 412, 412]);
  });
});

/**
 * A DELETE under If-Match is one statement (or batch) conditional on the version it names: a PATCH
 * (or PUT) under the same ETag that lands between the precondition step and the delete makes the
 * DELETE 412, never both 200 with the change lost. Each resource with a single-resource GET whose
 * DELETE takes If-Match, a few rounds each, the requests sent at once through HTTP.
 */
interface Deletable {
  name: string;
  /** A fresh resource: its path, and the change that writes it (PATCH, or PUT for a draft). */
  create: () => Promise<string>;
  change: (n: number) => { method: "PATCH" | "PUT"; json: Json };
}

async function deletableResources(): Promise<{ key: string; resources: Deletable[] }> {
  const workspace = await inboxWorkspace();
  const { key, workspaceId, mailbox } = workspace;
  const vendor = await createObjectType(key, workspaceId);
  const personId = await addPerson(key, workspaceId, "Pat Person", "pat@customer.example");
  const created = async (path: string, json: Json, wrapper: string) =>
    ((await expectStatus<Record<string, Json>>(201, path, { method: "POST", key, json }))[wrapper] as { id: string }).id;
  const resources: Deletable[] = [
    {
      name: "task",
      create: async () => `/tasks/${await created(`/records/${personId}/tasks`, { title: "Call back" }, "task")}`,
      change: (n) => ({ method: "PATCH", json: { title: `Call back ${n}` } }),
    },
    {
      name: "note",
      create: async () => `/notes/${await created(`/records/${personId}/notes`, { title: "First call" }, "note")}`,
      change: (n) => ({ method: "PATCH", json: { title: `First call ${n}` } }),
    },
    {
      name: "record view",
      create: async () => `/crm/views/${(await createView(key, vendor.id, { name: `View ${unique()}` })).id}`,
      change: (n) => ({ method: "PATCH", json: { name: `View ${n} ${unique()}` } }),
    },
    {
      name: "record",
      create: async () =>
        `/records/${await created("/records", { objectTypeId: vendor.id, fields: { name: "Acme Supplies" } }, "record")}`,
      change: (n) => ({ method: "PATCH", json: { fields: { name: `Acme Supplies ${n}` } } }),
    },
    {
      name: "webhook",
      create: async () =>
        `/webhooks/${await created("/webhooks", { workspaceId, url: "http://127.0.0.1:9/hook", eventTypes: ["task.created"] }, "webhook")}`,
      change: (n) => ({ method: "PATCH", json: { description: `Hook ${n}` } }),
    },
    {
      name: "compose draft",
      create: async () =>
        `/inbox/drafts/${await created("/inbox/drafts", { workspaceId, mailbox, to: ["a@customer.example"] }, "draft")}`,
      change: (n) => ({ method: "PATCH", json: { subject: `Quote ${n}` } }),
    },
    {
      name: "conversation draft",
      create: async () => {
        const { conversationId } = await storeMessage(workspace.db, inboundMessage(mailbox));
        const path = `/inbox/conversations/${conversationId}/draft`;
        await expectStatus(200, path, { method: "PUT", key, json: { text: "Draft reply" } });
        return path;
      },
      change: (n) => ({ method: "PUT", json: { text: `Draft reply ${n}` } }),
    },
  ];
  return { key, resources };
}

describe("DELETE under If-Match against a concurrent change", () => {
  let key: string;
  let resources: Deletable[];
  beforeAll(async () => {
    ({ key, resources } = await deletableResources());
  });

  it.each(["task", "note", "record view", "record", "webhook", "compose draft", "conversation draft"])(
    "a %s changed three times and deleted at once under one ETag: exactly one of the four writes, the others 412",
    async (name) => {
      const resource = resources.find((candidate) => candidate.name === name) as Deletable;
      for (let round = 0; round < 6; round++) {
        const path = await resource.create();
        const etag = (await call(path, { key })).headers.get("etag") as string;
        const [deleted, ...changed] = await Promise.all([
          call(path, { method: "DELETE", key, headers: { "if-match": etag } }),
          ...[1, 2, 3].map((n) => {
            const { method, json } = resource.change(round * 10 + n);
            return call(path, { method, key, json, headers: { "if-match": etag } });
          }),
        ]);
        const statuses = [deleted.status, ...changed.map((response) => response.status)];
        expect(
          statuses.filter((status) => status === 200),
          `round ${round}: ${statuses}`,
        ).toHaveLength(1);
        const after = await call(path, { key });
        if (deleted.status === 200) {
          for (const response of changed) expect([412, 404], `round ${round}: ${statuses}`).toContain(response.status);
          expect(after.status).toBe(404);
        } else {
          expect(
            statuses.filter((status) => status === 412),
            `round ${round}: ${statuses}`,
          ).toHaveLength(3);
          // What stands is the winner's version: the GET answers the ETag its write answered.
          const winner = changed.find((response) => response.status === 200) as Response;
          expect(after.headers.get("etag")).toBe(winner.headers.get("etag"));
        }
      }
    },
  );
});

/**
 * A resource without a single-resource GET (object types, fields, options, inbox views, comments,
 * tags): its creation and every PATCH answer its ETag, and If-Match guards its PATCH and DELETE.
 * What is stored is read back through the resource's list.
 */
interface Versioned {
  name: string;
  /** Its creation: path and body (a fresh one per call, so names stay unique). */
  create: { path: string; json: () => Json };
  wrapper: string;
  /** The prefix of its ids. */
  prefix: string;
  path: (id: string) => string;
  /** A change whose value differs by `n`, and the property it sets. */
  change: (n: number) => Json;
  /** The resource as its list shows it now. */
  stored: (id: string) => Promise<Json | undefined>;
  deletable: boolean;
}

async function versionedResources(): Promise<{ key: string; resources: Versioned[] }> {
  const workspace = await inboxWorkspace();
  const { key, workspaceId, mailbox } = workspace;
  const vendor = await createObjectType(key, workspaceId);
  const tier = await createField(key, vendor.id, { name: "Tier", type: "select", options: [{ value: "gold" }] });
  const { conversationId } = await storeMessage(workspace.db, inboundMessage(mailbox));
  const listed = async (path: string, id: string, wrapper = "data") => {
    const body = await expectStatus<Record<string, Json[]>>(200, path, { key });
    return (body[wrapper] as Json[]).find((item) => item.id === id);
  };
  const resources: Versioned[] = [
    {
      name: "object type",
      create: {
        path: "/crm/objects",
        json: () => ({ workspaceId, nameSingular: "Supplier", namePlural: `Suppliers ${unique()}` }),
      },
      wrapper: "object",
      prefix: "obj",
      path: (id) => `/crm/objects/${id}`,
      change: (n) => ({ namePlural: `Suppliers ${n} ${unique()}` }),
      stored: (id) => listed(`/crm/objects?workspaceId=${workspaceId}`, id, "objects"),
      deletable: true,
    },
    {
      name: "field",
      create: { path: `/crm/objects/${vendor.id}/fields`, json: () => ({ name: `Region ${unique()}`, type: "text" }) },
      wrapper: "field",
      prefix: "fld",
      path: (id) => `/crm/fields/${id}`,
      change: (n) => ({ name: `Region ${n}` }),
      stored: (id) => listed(`/crm/objects/${vendor.id}/fields`, id),
      deletable: true,
    },
    {
      name: "option",
      create: { path: `/crm/fields/${tier.id}/options`, json: () => ({ value: `silver-${unique()}` }) },
      wrapper: "option",
      prefix: "opt",
      path: (id) => `/crm/fields/${tier.id}/options/${id}`,
      change: (n) => ({ label: `Silver ${n}` }),
      stored: async (id) =>
        (((await listed(`/crm/objects/${vendor.id}/fields`, tier.id)) as Json).options as Json[]).find(
          (option) => option.id === id,
        ),
      deletable: false,
    },
    {
      name: "inbox view",
      create: { path: "/inbox/views", json: () => ({ workspaceId, name: "Waiting" }) },
      wrapper: "view",
      prefix: "ivw",
      path: (id) => `/inbox/views/${id}`,
      change: (n) => ({ name: `Waiting ${n}` }),
      stored: (id) => listed(`/inbox/views?workspaceId=${workspaceId}`, id),
      deletable: true,
    },
    {
      name: "comment",
      create: { path: `/inbox/conversations/${conversationId}/comments`, json: () => ({ text: "Looking into it" }) },
      wrapper: "comment",
      prefix: "cmt",
      path: (id) => `/inbox/comments/${id}`,
      change: (n) => ({ text: `Looking into it ${n}` }),
      stored: (id) => listed(`/inbox/conversations/${conversationId}/comments`, id),
      deletable: true,
    },
    {
      name: "tag",
      create: { path: "/inbox/tags", json: () => ({ workspaceId, name: `Billing ${unique()}`, color: "#22c55e" }) },
      wrapper: "tag",
      prefix: "tag",
      path: (id) => `/inbox/tags/${id}`,
      change: (n) => ({ name: `Billing ${n} ${unique()}` }),
      stored: (id) => listed(`/inbox/tags?workspaceId=${workspaceId}`, id),
      deletable: true,
    },
  ];
  return { key, resources };
}

const versionedNames = ["object type", "field", "option", "inbox view", "comment", "tag"];

describe("resources without a single-resource GET", () => {
  let key: string;
  let resources: Versioned[];
  beforeAll(async () => {
    ({ key, resources } = await versionedResources());
  });
  const resourceNamed = (name: string) => resources.find((resource) => resource.name === name) as Versioned;
  const etagPattern = /^"[\w-]{43}"$/;

  it.each(versionedNames)(
    "a %s answers its ETag on creation and every PATCH; If-Match with it writes, a stale one is 412 and nothing is written",
    async (name) => {
      const resource = resourceNamed(name);
      const created = await call(resource.create.path, { method: "POST", key, json: resource.create.json() });
      expect(created.status).toBe(201);
      const createdTag = created.headers.get("etag") as string;
      expect(createdTag).toMatch(etagPattern);
      const { id } = ((await created.json()) as Record<string, Json>)[resource.wrapper] as { id: string };
      const path = resource.path(id);

      const first = await call(path, { method: "PATCH", key, json: resource.change(1), headers: { "if-match": createdTag } });
      expect(first.status).toBe(200);
      const firstTag = first.headers.get("etag") as string;
      expect(firstTag).toMatch(etagPattern);
      expect(firstTag).not.toBe(createdTag);
      const shown = ((await first.json()) as Record<string, Json>)[resource.wrapper] as Json;

      const stale = await call(path, { method: "PATCH", key, json: resource.change(2), headers: { "if-match": createdTag } });
      expect(stale.status).toBe(412);
      expect(((await stale.json()) as { error: { code: string } }).error.code).toBe("precondition_failed");
      expect(await resource.stored(id)).toEqual(shown);
      // A weak tag never matches for a write.
      const weak = await call(path, { method: "PATCH", key, json: resource.change(3), headers: { "if-match": `W/${firstTag}` } });
      expect(weak.status).toBe(412);
      expect(await resource.stored(id)).toEqual(shown);

      const second = await call(path, { method: "PATCH", key, json: resource.change(4), headers: { "if-match": firstTag } });
      expect(second.status).toBe(200);
      const secondTag = second.headers.get("etag") as string;
      if (!resource.deletable) return;
      expect((await call(path, { method: "DELETE", key, headers: { "if-match": firstTag } })).status).toBe(412);
      expect(await resource.stored(id)).toBeDefined();
      expect((await call(path, { method: "DELETE", key, headers: { "if-match": secondTag } })).status).toBe(200);
      expect(await resource.stored(id)).toBeUndefined();
    },
  );

  it.each(versionedNames.filter((name) => name !== "option"))(
    "a %s changed and deleted at once under one ETag: one of the two, never both",
    async (name) => {
      const resource = resourceNamed(name);
      for (let round = 0; round < 4; round++) {
        const created = await call(resource.create.path, { method: "POST", key, json: resource.create.json() });
        expect(created.status).toBe(201);
        const etag = created.headers.get("etag") as string;
        const { id } = ((await created.json()) as Record<string, Json>)[resource.wrapper] as { id: string };
        const path = resource.path(id);
        const [patched, deleted] = await Promise.all([
          call(path, { method: "PATCH", key, json: resource.change(round), headers: { "if-match": etag } }),
          call(path, { method: "DELETE", key, headers: { "if-match": etag } }),
        ]);
        const statuses = [patched.status, deleted.status];
        expect(
          statuses.filter((status) => status === 200),
          `round ${round}: ${statuses}`,
        ).toHaveLength(1);
        expect([412, 404]).toContain(statuses.find((status) => status !== 200));
        const stored = await resource.stored(id);
        if (deleted.status === 200) expect(stored).toBeUndefined();
        else expect(stored).toEqual(((await patched.json()) as Record<string, Json>)[resource.wrapper]);
      }
    },
  );

  it.each(versionedNames)("a %s that does not exist is 404 under If-Match, as without it", async (name) => {
    const resource = resourceNamed(name);
    const response = await call(resource.path(`${resource.prefix}_01jd5q0m4x8r2w3y6z7a9b`), {
      method: "PATCH",
      key,
      json: resource.change(5),
      headers: { "if-match": '"whatever"' },
    });
    expect(response.status).toBe(404);
  });
});

describe("the MCP update tools", () => {
  it("take ifMatch, and hand the ETag back in _meta", async () => {
    const { key, taskId } = await aTask();
    const read = await rawToolCall(key, "tasks_get", { taskId });
    const etag = (read as { _meta?: { etag?: string } })._meta?.etag as string;
    expect(etag).toMatch(/^"[\w-]{43}"$/);
    const updated = await rawToolCall(key, "tasks_update", { taskId, title: "From the agent", ifMatch: etag });
    expect(structured<{ task: Json }>(updated).task.title).toBe("From the agent");
    const stale = await rawToolCall(key, "tasks_update", { taskId, title: "Too late", ifMatch: etag });
    expect(toolError(stale).error.code).toBe("precondition_failed");
  });
});

describe("the MCP tools of a resource without a single-resource GET", () => {
  it("hand the created resource's ETag back in _meta and take ifMatch on update and delete", async () => {
    const { key, workspaceId } = await inboxWorkspace();
    const created = await rawToolCall(key, "inbox_tags_create", { workspaceId, name: "Billing", color: "#22c55e" });
    const etag = (created as { _meta?: { etag?: string } })._meta?.etag as string;
    expect(etag).toMatch(/^"[\w-]{43}"$/);
    const tagId = structured<{ tag: { id: string } }>(created).tag.id;
    const renamed = await rawToolCall(key, "inbox_tags_update", { tagId, name: "Invoices", ifMatch: etag });
    expect(structured<{ tag: Json }>(renamed).tag.name).toBe("Invoices");
    const stale = await rawToolCall(key, "inbox_tags_delete", { tagId, ifMatch: etag });
    expect(toolError(stale).error.code).toBe("precondition_failed");
    const current = (renamed as { _meta?: { etag?: string } })._meta?.etag as string;
    expect(
      structured<{ deletedId: string }>(await rawToolCall(key, "inbox_tags_delete", { tagId, ifMatch: current })).deletedId,
    ).toBe(tagId);
  });
});

describe("the catalogue", () => {
  const document = openApiDocument("http://127.0.0.1:8787");
  type Entry = { parameters?: { name: string }[]; responses: Json };
  const paths = document.paths as Record<string, Record<string, Entry>>;
  const entry = (operation: Operation) => paths[operation.path]?.[operation.method] as Entry;

  it("declares If-None-Match and 304 on every single-resource GET, If-Match and 412 on every write of a versioned resource, an ETag on its creation", () => {
    const conditional = catalogue.filter((operation) => conditionalResourceOf(operation, catalogue));
    expect(conditional.map((operation) => operation.operationId)).toEqual(
      expect.arrayContaining([
        "getTask",
        "updateTask",
        "deleteTask",
        "getWebhook",
        "updateWebhook",
        "putConversationDraft",
        ...["ObjectType", "Field", "InboxView", "Comment", "Tag"].flatMap((name) => [
          `create${name}`,
          `update${name}`,
          `delete${name}`,
        ]),
        "createFieldOption",
        "updateFieldOption",
      ]),
    );
    for (const operation of conditional) {
      const { parameters = [], responses } = entry(operation);
      const names = parameters.map((parameter) => parameter.name);
      if (operation.method === "post") {
        const created = responses["201"] as { headers: Json };
        expect(Object.keys(created.headers), operation.operationId).toContain("ETag");
        expect(names, operation.operationId).not.toContain("If-Match");
      } else if (operation.method === "get") {
        expect(names, operation.operationId).toContain("If-None-Match");
        expect(Object.keys(responses), operation.operationId).toContain("304");
      } else {
        expect(names, operation.operationId).toContain("If-Match");
        expect(Object.keys(responses), operation.operationId).toContain("412");
      }
    }
  });
});
