import { fromHtml } from "hast-util-from-html";

// hast's node types as hast-util-from-html returns them: `@types/hast` is its dependency, not ours.
export type Root = ReturnType<typeof fromHtml>;
export type Element = Extract<Root["children"][number], { type: "element" }>;
export type ElementContent = Element["children"][number];

/**
 * The body of `html` as a browser builds it when the markup is shown inside a standards-mode page:
 * the WHATWG tree builder (parse5), so `<xmp>`, `<noembed>`, foreign content and misnested tags
 * end up exactly where a reader's browser puts them. A whole e-mail document works too: what the
 * parser moves to its head (title, style, meta, base) is left out with the head. A `<!doctype
 * html>` goes first because without one the page would be parsed in quirks mode, which nests
 * tables and paragraphs differently from the pages that display this HTML.
 */
export function parseBody(html: string): Root {
  const root = parseDocument(html).children.find(isElement);
  // A `<frameset>` takes the body's place; frames are never content.
  const body = root?.children.filter(isElement).find((element) => element.tagName === "body");
  return { type: "root", children: body?.children ?? [] };
}

/** The whole standards-mode document `html` makes, head included. */
export function parseDocument(html: string): Root {
  return fromHtml(`<!doctype html>${html}`);
}

export const isElement = (node: { type: string }): node is Element => node.type === "element";
