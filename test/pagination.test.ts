import { describe, expect, it } from "vitest";
import { addWorkspace, createOrganization } from "./fixtures";
import { call } from "./stack";

interface Page {
  data: { id: string; name: string }[];
  pagination: { cursor: string | null; hasMore: boolean };
}

const page = async (key: string, query: string) => {
  const response = await call(`/workspaces?${query}`, { key });
  return { status: response.status, body: (await response.json()) as Page & { error?: { code: string } } };
};

describe("keyset pagination with opaque cursors", () => {
  it("pages through every row once while rows are inserted between pages", async () => {
    const { key, organizationId, workspaceIds } = await createOrganization({ workspaceCount: 7 });
    const seen: string[] = [];
    let cursor: string | null = null;
    const inserted: string[] = [];
    let pages = 0;
    do {
      const { status, body } = await page(key, `limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      expect(status).toBe(200);
      expect(body.data.length).toBeLessThanOrEqual(3);
      expect(body.pagination.cursor === null).toBe(!body.pagination.hasMore);
      seen.push(...body.data.map((workspace) => workspace.id));
      cursor = body.pagination.cursor;
      // Another writer adds a workspace while this client pages.
      if (cursor) inserted.push(await addWorkspace("us", organizationId, `inserted ${++pages}`));
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    // Every row that existed at the start; rows added meanwhile come after them (later creation).
    // Sets, because rows created in the same millisecond are ordered by their random id part.
    expect(new Set(seen.slice(0, workspaceIds.length))).toEqual(new Set(workspaceIds));
    expect(seen.slice(workspaceIds.length).every((id) => inserted.includes(id))).toBe(true);
    expect(pages).toBeGreaterThanOrEqual(2);
  });

  it("defaults to 50 and refuses limits outside 1 to 100", async () => {
    const { key } = await createOrganization({ workspaceCount: 51 });
    const first = await page(key, "");
    expect(first.body.data).toHaveLength(50);
    expect(first.body.pagination.hasMore).toBe(true);
    expect((await page(key, "limit=100")).body.data).toHaveLength(51);
    for (const limit of ["0", "101", "-1"]) expect((await page(key, `limit=${limit}`)).status).toBe(400);
  });

  it("refuses a tampered cursor with invalid_cursor", async () => {
    const { key } = await createOrganization({ workspaceCount: 3 });
    const cursor = (await page(key, "limit=1")).body.pagination.cursor as string;
    const [body, signature] = cursor.split(".") as [string, string];
    const position = JSON.parse(atob(body.replaceAll("-", "+").replaceAll("_", "/")));
    position.p[1] = "ws_00000000000000000000000000";
    const forgedBody = btoa(JSON.stringify(position)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
    for (const tampered of [`${forgedBody}.${signature}`, `${cursor}x`, "not-a-cursor", `${body}.`]) {
      const { status, body: error } = await page(key, `cursor=${encodeURIComponent(tampered)}`);
      expect(status).toBe(400);
      expect(error.error?.code).toBe("invalid_cursor");
    }
  });

  it("refuses another organization's cursor", async () => {
    const first = await createOrganization({ workspaceCount: 3 });
    const second = await createOrganization({ workspaceCount: 3 });
    const cursor = (await page(first.key, "limit=1")).body.pagination.cursor as string;
    const { status, body } = await page(second.key, `cursor=${encodeURIComponent(cursor)}`);
    expect(status).toBe(400);
    expect(body.error?.code).toBe("invalid_cursor");
  });
});
