import { sanitize } from "hast-util-sanitize";
import { toHtml } from "hast-util-to-html";
import { toText } from "hast-util-to-text";
import { type Element, type ElementContent, isElement, parseBody, type Root } from "./parse";
import { contentSchema } from "./schema";
import { safeStyle } from "./style";
import { absoluteUrl, imageSchemes, linkSchemes } from "./urls";

/**
 * HTML of task descriptions, notes and (later) e-mail from anyone on the internet, made safe to
 * show: parsed as a browser parses it (parse5), cut down to an allowlist of formatting elements
 * and attributes (hast-util-sanitize with `contentSchema`), links and images checked with the URL
 * parser, styles property by property, then serialized with escaping (hast-util-to-html).
 * Working on the parsed tree instead of the markup is what closes the raw-text tricks: `<xmp>`,
 * `<noembed>` and friends are whatever the tree builder makes of them, never text that later
 * turns back into tags.
 */
export function sanitizeHtml(html: string): string {
  // Unwrapping an element can leave its children where the tree builder would not have put them
  // (`<h1><x><h2>` becomes `<h1><h2>`, which a browser splits into two headings). Cleaning the
  // result once more stores what a reader's browser will build, so sanitizing is idempotent.
  return clean(clean(html));
}

/** The text of (sanitized) HTML as a browser's `innerText` gives it: block elements on their own lines. */
export function plainTextOf(html: string): string {
  return toText(parseBody(html)).trim();
}

function clean(html: string): string {
  // A root in, a root out (the declared return type is any hast node).
  const safe = sanitize(parseBody(html), contentSchema) as Root;
  // The schema allows no doctype, so what is left under the root is element content.
  const children = finishAll(safe.children as ElementContent[]);
  // Named references (`&amp;`, not `&#x26;`) keep stored text readable; the escaping is the same.
  return escapeAngleBracketsInAttributes(
    toHtml({ type: "root", children }, { characterReferences: { useNamedReferences: true } }),
  );
}

/**
 * hast-util-to-html escapes only `"` and `&` in double-quoted attribute values, which is enough
 * for a page that parses the HTML as HTML, but a raw `<` or `>` there (`title="</textarea><img …>"`)
 * turns back into tags wherever the stored HTML lands in a raw-text context: a `<textarea>`, a
 * template, a regex-based filter. Its output is regular enough to finish the escaping here: text
 * has every `<` escaped (and the schema keeps no comments), so every `<` opens a tag, and attribute
 * values are always double-quoted with every `"` inside escaped, so inside a tag each `"…"` is
 * exactly one value.
 */
function escapeAngleBracketsInAttributes(html: string): string {
  return html.replace(/<[^<>"]*(?:"[^"]*"[^<>"]*)*>/g, (tag) =>
    tag.replace(/"[^"]*"/g, (value) => value.replaceAll("<", "&lt;").replaceAll(">", "&gt;")),
  );
}

/** The checks an allowlist of names cannot express: URL schemes, style declarations, link relations. */
function finishAll(nodes: ElementContent[]): ElementContent[] {
  return nodes.flatMap((node) => (isElement(node) ? finish(node) : [node]));
}

function finish(element: Element): ElementContent[] {
  const { properties } = element;
  if (typeof properties.style === "string") properties.style = safeStyle(properties.style);
  if (element.tagName === "img") {
    const src = typeof properties.src === "string" ? absoluteUrl(properties.src, imageSchemes) : undefined;
    // An image with nothing to show is dropped rather than left as a broken box.
    if (!src) return [];
  }
  if (element.tagName === "a") {
    properties.href = typeof properties.href === "string" ? absoluteUrl(properties.href, linkSchemes) : undefined;
    // A link opens another site: no window.opener for it, no Referer, and no endorsement.
    properties.rel = properties.href ? ["noopener", "noreferrer", "nofollow"] : undefined;
  }
  element.children = finishAll(element.children);
  return [element];
}
