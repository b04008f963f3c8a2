import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, cast } from "./stack";

describe("GET /workspaces", () => {
  it("lists the workspaces of alice's organization with her role", async () => {
    const { alice, acme } = await cast();
    const response = await call("/workspaces", { key: alice.apiKey });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      data: { name: string; role: string; isInheritedAccess: boolean; organizationId: string }[];
    };
    expect(body.data.map((workspace) => [workspace.name, workspace.role, workspace.isInheritedAccess])).toEqual([
      ["Sales", "owner", false],
      ["Support", "owner", true],
    ]);
    expect(body.data.every((workspace) => workspace.organizationId === acme.id)).toBe(true);
  });

  it("serves Globex from the eu region, whose database alone holds it", async () => {
    const { dave, globex } = await cast();
    const response = await call("/workspaces", { key: dave.apiKey });
    const body = (await response.json()) as { data: { id: string; name: string }[] };
    expect(body.data.map((workspace) => workspace.name)).toEqual(["Operations"]);
    const id = body.data[0]?.id;
    expect(await env.EU_DB.prepare("select count(*) as n from workspaces where id = ?").bind(id).first("n")).toBe(1);
    expect(
      await env.US_DB.prepare("select count(*) as n from workspaces where organization_id = ?").bind(globex.id).first("n"),
    ).toBe(0);
  });
});

describe("the demo seed", () => {
  it("fills the owners' workspaces with records, a conversation and a task from a meeting", async () => {
    const { alice, sales } = await cast();
    const { objects } = (await (await call(`/crm/objects?workspaceId=${sales.id}`, { key: alice.apiKey })).json()) as {
      objects: { id: string; slug: string }[];
    };
    const names = async (slug: string) => {
      const objectTypeId = objects.find((object) => object.slug === slug)?.id;
      const page = (await (await call(`/records?objectTypeId=${objectTypeId}&limit=100`, { key: alice.apiKey })).json()) as {
        data: { fields: { name: string } }[];
      };
      return page.data.map((record) => record.fields.name);
    };
    expect(await names("companies")).toEqual(expect.arrayContaining(["Initech", "Hooli"]));
    expect(await names("people")).toEqual(expect.arrayContaining(["Peter Gibbons", "Gavin Belson"]));
    expect(await names("deals")).toEqual(expect.arrayContaining(["Initech renewal", "Hooli pilot"]));
    const tasks = (await (
      await call(`/tasks?workspaceId=${sales.id}&assigneeUserId=${alice.id}&limit=100`, { key: alice.apiKey })
    ).json()) as {
      data: { title: string; source: unknown }[];
    };
    expect(tasks.data.find((task) => task.title === "Send the renewal proposal")?.source).toEqual({
      resourceType: "meeting",
      resourceId: expect.stringMatching(/^mtg_/),
    });
    expect(
      await env.US_DB.prepare("select count(*) as n from conversations where workspace_id = ?").bind(sales.id).first("n"),
    ).toBe(1);
  });
});
