// Writes CHANGELOG.md from the change log's one source, packages/contracts/src/changelog.ts, which
// `GET /changelog` serves too. test/changelog.test.ts fails while the committed file differs.
import { writeFileSync } from "node:fs";
import { build } from "esbuild";

const outfile = ".wrangler/changelog/changelog.mjs";
await build({
  entryPoints: ["packages/contracts/src/changelog-markdown.ts"],
  bundle: true,
  platform: "node",
  format: "esm",
  outfile,
  logLevel: "warning",
});
const { changelogMarkdown } = await import(`${process.cwd()}/${outfile}`);
writeFileSync("CHANGELOG.md", changelogMarkdown());
console.log("CHANGELOG.md written from packages/contracts/src/changelog.ts");
