import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { operationsIndexMarkdown } from "../../scripts/lib/operations-index.mjs";

describe("docs/operations.md", () => {
  it("is what the route catalogue and the source tree make now (bash scripts/toolchain.sh pnpm operations rewrites it)", async () => {
    const committed = readFileSync(new URL("../../docs/operations.md", import.meta.url), "utf8");
    expect(committed).toBe(await operationsIndexMarkdown());
  });

  it("finds a handler file for every operation", async () => {
    expect(await operationsIndexMarkdown()).not.toMatch(/\| handler \| not found \|/);
  });
});
