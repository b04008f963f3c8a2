// The project's own import graph (workers/*/src, packages/*/src), type-only imports included: a
// circle through types is still a circle a reader has to untangle. `importCircles()` lists every
// strongly connected group of modules; the test in test/node/import-graph.test.ts keeps it empty.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const root = resolve(import.meta.dirname, "../..");
const sourceRoots = ["workers", "packages"].flatMap((top) =>
  readdirSync(join(root, top)).map((name) => join(root, top, name, "src")),
);

/** `@crm/<name>[/<subpath>]` → the file its package.json exports. */
function workspaceEntry(specifier) {
  const [, scope, name, subpath] = specifier.match(/^(@crm)\/([a-z-]+)(\/.*)?$/) ?? [];
  if (!scope) return undefined;
  for (const top of ["packages", "workers"]) {
    const manifestPath = join(root, top, name, "package.json");
    if (!existsSync(manifestPath)) continue;
    const exportsMap = JSON.parse(readFileSync(manifestPath, "utf8")).exports ?? {};
    const target = exportsMap[subpath ? `.${subpath}` : "."];
    return target ? join(root, top, name, target) : undefined;
  }
  return undefined;
}

function resolveImport(fromFile, specifier) {
  if (specifier.startsWith("@crm/")) return workspaceEntry(specifier);
  if (!specifier.startsWith(".")) return undefined;
  const base = resolve(dirname(fromFile), specifier);
  const candidates = [base, `${base}.ts`, `${base}.tsx`, join(base, "index.ts"), join(base, "index.tsx")];
  return candidates.find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
}

function sourceFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

// `import … from "x"`, `export … from "x"`, `import "x"` and `import("x")`, across line breaks.
const importPattern = /(?:\bfrom\s*|\bimport\s*\(?\s*)["']([^"']+)["']/g;

/** Each source file → the project files it imports. */
export function importGraph() {
  const graph = new Map();
  for (const file of sourceRoots.flatMap(sourceFiles)) {
    const text = readFileSync(file, "utf8");
    const targets = new Set();
    for (const [, specifier] of text.matchAll(importPattern)) {
      const target = resolveImport(file, specifier);
      if (target) targets.add(target);
    }
    graph.set(file, targets);
  }
  return graph;
}

/** Strongly connected groups of more than one module (or a module importing itself), paths relative to the root (Tarjan). */
export function importCircles(graph = importGraph()) {
  let counter = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const circles = [];
  const visit = (file) => {
    index.set(file, counter);
    low.set(file, counter);
    counter += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file), low.get(target)));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file), index.get(target)));
    }
    if (low.get(file) !== index.get(file)) return;
    const group = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      group.push(member);
    } while (member !== file);
    if (group.length > 1 || graph.get(file)?.has(file)) circles.push(group.map((path) => relative(root, path)).sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return circles;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const circles = importCircles();
  for (const circle of circles) console.log(`${circle.length} files:\n  ${circle.join("\n  ")}`);
  console.log(`${circles.length} import circle(s)`);
}
