/** A file's text, as Vite's `?raw` import gives it (test/changelog.test.ts reads the committed CHANGELOG.md). */
declare module "*.md?raw" {
  const text: string;
  export default text;
}

/** Vite's glob import (test/error-log.test.ts reads the Workers' sources with it). */
interface ImportMeta {
  glob(patterns: string | string[], options: { query: "?raw"; import: "default"; eager: true }): Record<string, unknown>;
}

/** A migration's SQL, as Vite's `?raw` import gives it (test/workspace-members.test.ts applies one to rows made before it). */
declare module "*.sql?raw" {
  const text: string;
  export default text;
}
