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
