// Writes docs/operations.md from the route catalogue and the source tree (scripts/lib/operations-index.mjs).
import { writeFileSync } from "node:fs";
import { operationsIndexMarkdown } from "./lib/operations-index.mjs";

writeFileSync("docs/operations.md", await operationsIndexMarkdown());
console.log("docs/operations.md written from the route catalogue");
