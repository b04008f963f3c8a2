import { catalogue, changelog, changelogEntries, changelogMarkdown, removedRoutes } from "@crm/contracts";
import { describe, expect, it } from "vitest";
import committedChangelog from "../CHANGELOG.md?raw";
import { errorOf } from "./crm";
import { call } from "./stack";

interface Entry {
  date: string;
  category: "addition" | "behaviour_change" | "removal";
  summary: string;
  routes: string[];
}

const readChangelog = async () => {
  const response = await call("/changelog");
  expect(response.status).toBe(200);
  return ((await response.json()) as { entries: Entry[] }).entries;
};

describe("GET /changelog: the dated change log, without a credential", () => {
  it("serves every change of the source, newest release first, each with its date, category and routes", async () => {
    const entries = await readChangelog();
    expect(entries).toEqual(changelogEntries());
    expect(entries).toHaveLength(changelog.reduce((count, release) => count + release.changes.length, 0));
    const dates = entries.map((entry) => entry.date);
    expect(dates).toEqual([...dates].sort().reverse());
    expect(new Set(entries.map((entry) => entry.category))).toEqual(new Set(["addition", "behaviour_change", "removal"]));
  });

  it("names the routes of this issue's work, and each catalogue route it names exists", async () => {
    const entries = await readChangelog();
    const named = new Set(entries.flatMap((entry) => entry.routes));
    for (const route of ["GET /public/integrations/crm", "GET /public/integrations/crm/{slug}", "GET /changelog"])
      expect(named).toContain(route);
    const served = new Set([
      ...catalogue.map((operation) => `${operation.method.toUpperCase()} ${operation.path}`),
      ...removedRoutes.map((route) => `${route.method} ${route.path}`),
    ]);
    // What is neither a catalogue nor a removed route is the document, the docs page, internal or at the origin (the type says which).
    const elsewhere = [...named].filter((route) => !served.has(route));
    for (const route of elsewhere)
      expect(route).toMatch(/^[A-Z]+ (\/openapi\.json|\/docs|\/internal\/|\/oauth\/|\/\.well-known\/|\/console\/|\/mcp$)/);
  });

  it("lists each removed route as a removal, and each still answers 410 route_removed", async () => {
    const removals = (await readChangelog()).filter((entry) => entry.category === "removal").flatMap((entry) => entry.routes);
    expect(removals).toContain("GET /record-email-attachment-download");
    for (const route of removedRoutes) {
      expect(removals).toContain(`${route.method} ${route.path}`);
      const response = await call(route.path, { method: route.method });
      expect(response.status).toBe(410);
      expect((await errorOf(response)).code).toBe("route_removed");
    }
  });
});

describe("CHANGELOG.md", () => {
  it("is what `pnpm changelog` writes from the same source (run it after adding an entry)", () => {
    expect(committedChangelog).toBe(changelogMarkdown());
  });

  it("renders every change once, under its release and category", () => {
    const markdown = changelogMarkdown();
    for (const release of changelog) expect(markdown).toContain(`## ${release.date} — ${release.title}`);
    const items = markdown.split("\n").filter((line) => line.startsWith("- "));
    expect(items).toHaveLength(changelogEntries().length);
  });
});
