/** A file's text, as Vite's `?raw` import gives it (test/changelog.test.ts reads the committed CHANGELOG.md). */
declare module "*.md?raw" {
  const text: string;
  export default text;
}
