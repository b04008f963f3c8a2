import { describe, expect, it } from "vitest";
import { createKey, createOrganization } from "./fixtures";
import { inboxWorkspace } from "./inbox";
import { clients, structured, toolError } from "./mcp";
import { call, cast, eventually } from "./stack";

/** Tool calls through both official clients: each runs its REST route's pipeline, in process. */

interface Page<T> {
  data: T[];
  pagination: { cursor: string | null; hasMore: boolean };
}
interface CrmRecord {
  id: string;
  fields: Record<string, unknown>;
}

/** A fresh workspace with the standard object types, and the id of its people type. */
async function peopleWorkspace() {
  const workspace = await inboxWorkspace();
  const { objects } = (await (
    await call(`/crm/objects?workspaceId=${workspace.workspaceId}`, { key: workspace.key })
  ).json()) as {
    objects: { id: string; slug: string }[];
  };
  return { ...workspace, peopleId: objects.find((object) => object.slug === "people")?.id as string };
}

/** How many people of the (fresh) workspace have this name, read through REST. */
async function peopleNamed(workspace: Awaited<ReturnType<typeof peopleWorkspace>>, name: string): Promise<number> {
  const page = (await (
    await call(`/records?objectTypeId=${workspace.peopleId}&limit=100`, { key: workspace.key })
  ).json()) as Page<CrmRecord>;
  return page.data.filter((record) => record.fields.name === name).length;
}

for (const [name, connect] of Object.entries(clients)) {
  describe(`tools/call, ${name}`, () => {
    it("reads: crm_objects_list answers what GET /crm/objects answers, as structured content", async () => {
      const { alice, sales } = await cast();
      const client = await connect(alice.apiKey);
      const result = await client.callTool({ name: "crm_objects_list", arguments: { workspaceId: sales.id } });
      const rest = await (await call(`/crm/objects?workspaceId=${sales.id}`, { key: alice.apiKey })).json();
      expect(structured(result)).toEqual(rest);
      await client.close();
    });

    it("writes: records_create, then records_update and records_get see the change", async () => {
      const workspace = await peopleWorkspace();
      const client = await connect(workspace.key);
      const created = await client.callTool({
        name: "records_create",
        arguments: { objectTypeId: workspace.peopleId, fields: { name: "Ada Lovelace" }, idempotencyKey: crypto.randomUUID() },
      });
      const { record } = structured<{ record: CrmRecord }>(created);
      expect(record.fields.name).toBe("Ada Lovelace");
      const updated = await client.callTool({
        name: "records_update",
        arguments: { recordId: record.id, fields: { job_title: "Analyst" } },
      });
      expect(structured<{ record: CrmRecord }>(updated).record.fields.job_title).toBe("Analyst");
      const read = await client.callTool({ name: "records_get", arguments: { recordId: record.id } });
      expect(structured<{ record: CrmRecord }>(read).record.fields).toMatchObject({ name: "Ada Lovelace", job_title: "Analyst" });
      const rest = (await (await call(`/records/${record.id}`, { key: workspace.key })).json()) as { record: CrmRecord };
      expect(rest.record.fields.job_title).toBe("Analyst");
      await client.close();
    });

    it("pages to the end: one page per call, continued with the cursor until hasMore is false", async () => {
      const organization = await createOrganization({ workspaceCount: 5 });
      const client = await connect(organization.key);
      const seen: string[] = [];
      let cursor: string | null = null;
      let calls = 0;
      do {
        const result = await client.callTool({
          name: "workspaces_list",
          arguments: { limit: 2, ...(cursor === null ? {} : { cursor }) },
        });
        const page: Page<{ id: string }> = structured(result);
        expect(page.data.length).toBeLessThanOrEqual(2);
        seen.push(...page.data.map((workspace) => workspace.id));
        expect(page.pagination.cursor === null).toBe(!page.pagination.hasMore);
        cursor = page.pagination.cursor;
        calls++;
      } while (cursor !== null);
      expect(calls).toBe(3);
      // Each once; workspaces made in the same millisecond follow their ids' random tails, not the order they were made in.
      expect([...seen].sort()).toEqual([...organization.workspaceIds].sort());
      await client.close();
    });

    it("records_create is idempotent by its required idempotencyKey: a retry answers the first record, writes nothing", async () => {
      const workspace = await peopleWorkspace();
      const client = await connect(workspace.key);
      const idempotencyKey = crypto.randomUUID();
      const create = (fields: Record<string, unknown>) =>
        client.callTool({ name: "records_create", arguments: { objectTypeId: workspace.peopleId, fields, idempotencyKey } });
      const first = structured<{ record: CrmRecord }>(await create({ name: "Grace Hopper" }));
      const retry = structured<{ record: CrmRecord }>(await create({ name: "Grace Hopper" }));
      expect(retry).toEqual(first);
      expect(await peopleNamed(workspace, "Grace Hopper")).toBe(1);
      // The same key for another record is refused, as on REST.
      expect(toolError(await create({ name: "Someone Else" })).error.code).toBe("idempotency_key_reused");
      // Without a key the tool does not run at all.
      const keyless = await client.callTool({
        name: "records_create",
        arguments: { objectTypeId: workspace.peopleId, fields: { name: "No Key" } },
      });
      expect(keyless.isError).toBe(true);
      expect(JSON.stringify(keyless.content)).toContain("idempotencyKey");
      expect(await peopleNamed(workspace, "No Key")).toBe(0);
      await client.close();
    });

    it("returns bytes that are not JSON (an attachment) as a blob resource with their content type", async () => {
      const { alice, sales } = await cast();
      const conversations = (await (
        await call(`/inbox/conversations?workspaceId=${sales.id}&limit=100`, { key: alice.apiKey })
      ).json()) as Page<{
        id: string;
        hasAttachments: boolean;
      }>;
      const withFile = conversations.data.find((conversation) => conversation.hasAttachments);
      const messages = (await (
        await call(`/inbox/conversations/${withFile?.id}/messages`, { key: alice.apiKey })
      ).json()) as Page<{
        id: string;
        attachments: { id: string; contentType: string }[];
      }>;
      const message = messages.data.find((candidate) => candidate.attachments.length > 0);
      const attachment = message?.attachments[0] as { id: string; contentType: string };
      const client = await connect(alice.apiKey);
      const result = await client.callTool({
        name: "inbox_attachments_get",
        arguments: { messageId: message?.id, attachmentId: attachment.id },
      });
      const [content] = result.content as { type: string; resource: { mimeType: string; blob: string } }[];
      const rest = await call(`/inbox/messages/${message?.id}/attachments/${attachment.id}`, { key: alice.apiKey });
      expect(content?.type).toBe("resource");
      expect(content?.resource.mimeType).toBe(rest.headers.get("content-type"));
      const bytes = Uint8Array.from(atob(content?.resource.blob ?? ""), (char) => char.charCodeAt(0));
      expect(bytes).toEqual(new Uint8Array(await rest.arrayBuffer()));
      await client.close();
    });

    it("answers API failures as results with isError and the REST error body", async () => {
      const { alice } = await cast();
      const client = await connect(alice.apiKey);
      const { error } = toolError(await client.callTool({ name: "records_get", arguments: { recordId: "rec_0000000000" } }));
      expect(error.code).toBe("not_found");
      expect(error.requestId).toMatch(/^req_/);
      await client.close();
    });

    it("refuses a call outside the credential's scopes as a tool error, as REST does", async () => {
      const { acme } = await cast();
      const client = await connect(acme.readOnlyKey as string);
      const refused = await client.callTool({
        name: "records_create",
        arguments: { objectTypeId: "obj_0000000000", fields: { name: "Nope" }, idempotencyKey: crypto.randomUUID() },
      });
      expect(toolError(refused).error).toMatchObject({
        code: "insufficient_scope",
        details: { requiredScope: "crm:records:write" },
      });
      await client.close();
    });
  });
}

describe("tool calls share the REST route's limits and ledger", () => {
  it("a full route window refuses the tool as a rate-limit tool error: the tool counts in its route's window", async () => {
    const { key } = await createOrganization();
    const responses = await Promise.all(Array.from({ length: 120 }, () => call("/workspaces", { key })));
    expect(responses.every((response) => response.status === 200)).toBe(true);
    const client = await clients["v2 client at 2026-07-28"](key);
    const { error } = toolError(await client.callTool({ name: "workspaces_list", arguments: {} }));
    expect(error).toMatchObject({
      code: "rate_limited",
      message: "Public API rate limit exceeded",
      details: { scope: "route", limit: 120, windowMs: 60_000 },
    });
    await client.close();
  });

  it("books each call under its REST route with the route's cost; auth_whoami is free and names the caller", async () => {
    const { key, organizationId, userId, workspaceIds } = await createOrganization({ workspaceCount: 1 });
    const client = await clients["1.x client at 2025-11-25"](key);
    for (let i = 0; i < 2; i++)
      structured(await client.callTool({ name: "crm_objects_list", arguments: { workspaceId: workspaceIds[0] } }));
    const whoami = structured<Record<string, unknown>>(await client.callTool({ name: "auth_whoami", arguments: {} }));
    expect(whoami).toMatchObject({
      organizationId,
      region: "us",
      actor: { type: "user", id: userId },
      credential: { type: "api_key" },
      workspaceIds: null,
      organizationRole: "owner",
    });
    await client.close();
    const reader = await createKey({ organizationId, ownerId: userId, scopes: ["usage:read"] });
    type Usage = { data: { route: string; requests: number; costUnits: number }[] };
    const objectsRow = (usage: Usage) => usage.data.find((row) => row.route === "GET /crm/objects");
    const report = await eventually(
      async () => (await (await call("/usage", { key: reader.key })).json()) as Usage,
      (usage) => (objectsRow(usage)?.requests ?? 0) >= 2,
    );
    expect(objectsRow(report)).toMatchObject({ requests: 2, costUnits: 40 });
    // Besides the reader's own GET /usage, nothing else is booked: auth_whoami is not a route.
    expect(report.data.map((row) => row.route).sort()).toEqual(["GET /crm/objects", "GET /usage"]);
  });
});
