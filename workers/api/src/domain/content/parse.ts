import { ApiError } from "@crm/contracts";
import { fromHtml } from "hast-util-from-html";
import { treeSizeBound } from "./growth";

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

/**
 * Limits on what the parser builds, not on what was sent. The tree builder copies formatting
 * elements into later blocks, so some inputs grow with the square of their length: a tree larger
 * than `maxTreeElements` (as bounded by `treeSizeBound` before parsing) is refused. Elements nested
 * deeper than `maxDepth` (counting html and body) are refused too: browsers stop nesting as well
 * (Blink at 512 levels), and the tree walks of the hast utilities recurse, so a few thousand
 * levels would overflow the stack.
 */
export const maxTreeElements = 50_000;
export const maxDepth = 512;

/** The whole standards-mode document `html` makes, head included. */
export function parseDocument(html: string): Root {
  if (treeSizeBound(html, maxTreeElements) > maxTreeElements)
    throw new ApiError(
      "invalid_request",
      `HTML that parses into more than ${maxTreeElements} elements is not accepted (formatting tags left open are copied into every later block)`,
    );
  let document: Root;
  try {
    document = fromHtml(`<!doctype html>${html}`);
  } catch (error) {
    // The conversion of parse5's tree recurses too: a stack overflow means markup far past the limit.
    if (error instanceof RangeError) throw tooDeep();
    throw error;
  }
  if (depthOf(document) > maxDepth) throw tooDeep();
  return document;
}

const tooDeep = () =>
  new ApiError("invalid_request", `HTML with elements nested more than ${maxDepth} levels deep is not accepted`);

/** How deeply elements nest, walked without recursion. */
function depthOf(root: Root): number {
  let deepest = 0;
  const pending: [Root | Element, number][] = [[root, 0]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [parent, depth] = next;
    deepest = Math.max(deepest, depth);
    for (const child of parent.children) if (isElement(child)) pending.push([child, depth + 1]);
  }
  return deepest;
}

export const isElement = (node: { type: string }): node is Element => node.type === "element";
