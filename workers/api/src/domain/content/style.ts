/**
 * Inline styles: a few properties that rich-text editors and e-mail bodies use for emphasis and
 * alignment are kept, everything else is dropped. Only `style` can carry CSS here (no `<style>`,
 * no `class`), and CSS is where resource loads (`url(`, `image-set(`, `@import`), old-IE script
 * (`expression(`) and overlays that imitate the application's own UI come from, so the rule is an
 * allowlist of properties whose values are plain words, numbers and hex colours:
 *
 * - no backslash anywhere: CSS escapes (`u\72l(`) could spell anything, so nothing is decoded and a
 *   style with one is dropped whole; HTML entities (`u&#114;l(`) are already decoded by the parser
 *   before this sees the value;
 * - no comment opener: a comment could split a word or hide a declaration;
 * - values only of letters, digits, spaces, `#`, `.`, `,`, `%` and `-`: no `(` (so no function:
 *   `url(`, `expression(`, `rgb(` alike), no `@`, `;`, `:`, `/`, `!` or quotes;
 * - and, belt and braces, no value containing the words `url` or `expression`.
 *
 * Positions, sizes, fonts, backgrounds and the like are dropped: they are what overlays and
 * lookalike login boxes are made of.
 */

const properties = new Set(["color", "background-color", "text-align", "font-weight", "font-style", "text-decoration"]);
const plainValue = /^[a-z0-9#.,% -]+$/i;
const loadingWord = /url|expression/i;

/** The allowed declarations of a `style` attribute, rewritten as `name: value; …`, or undefined if none is left. */
export function safeStyle(style: string): string | undefined {
  if (style.includes("\\") || style.includes("/*")) return undefined;
  const kept = style.split(";").flatMap((declaration) => {
    const colon = declaration.indexOf(":");
    if (colon < 0) return [];
    const property = declaration.slice(0, colon).trim().toLowerCase();
    const value = declaration
      .slice(colon + 1)
      .trim()
      .replace(/\s+/g, " ");
    return properties.has(property) && plainValue.test(value) && !loadingWord.test(value) ? [`${property}: ${value}`] : [];
  });
  return kept.length > 0 ? kept.join("; ") : undefined;
}
