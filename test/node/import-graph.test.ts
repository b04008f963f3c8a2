import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { importCircles } from "../../scripts/lib/import-graph.mjs";

const root = resolve(import.meta.dirname, "../..");

describe("the import graph of workers/*/src and packages/*/src", () => {
  it("has no circle (each is listed by its files; move the shared piece down to a module that imports nothing of its layer)", () => {
    const circles = importCircles().map((files) => files.join(" -> "));
    expect(circles).toEqual([]);
  });

  it("names every file of a circle, through type-only imports too", () => {
    const file = (name: string) => resolve(root, "workers/api/src", name);
    const graph = new Map([
      [file("env.ts"), new Set([file("lane.ts")])],
      [file("lane.ts"), new Set([file("shards.ts")])],
      [file("shards.ts"), new Set([file("env.ts")])],
      [file("database.ts"), new Set<string>()],
      [file("self.ts"), new Set([file("self.ts")])],
    ]);
    expect(importCircles(graph)).toEqual([
      ["workers/api/src/env.ts", "workers/api/src/lane.ts", "workers/api/src/shards.ts"],
      ["workers/api/src/self.ts"],
    ]);
  });
});
