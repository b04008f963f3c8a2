import { ApiError } from "@crm/contracts";
import { fromParse5 } from "hast-util-from-parse5";
import { type DefaultTreeAdapterMap, defaultTreeAdapter, parse, type TreeAdapter } from "parse5";

// hast's node types as hast-util-from-parse5 returns them: `@types/hast` is its dependency, not ours.
export type Root = Extract<ReturnType<typeof fromParse5>, { type: "root" }>;
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
 * elements (`a`, `b`, `font`, …) that a block closed into every later block they reach
 * ("reconstruct the active formatting elements"), with their attributes, so some inputs grow with
 * the square of their length: 20 KB of `<b x=1><b x=2>…` then `<p>y</p><p>y</p>…` is a million
 * elements, 60 KB with one long `class` a 50 MB tree (whatwg/html#10772; browsers do it too). The
 * parser is stopped as it creates the element past `maxTreeElements`, or the attribute character past
 * `maxTreeAttributeCharacters` (every copy counted), so the work stays linear in the input. Elements
 * nested deeper than `maxDepth` (counting html and body) are refused too: browsers stop nesting as
 * well (Blink at 512 levels), and the tree walks of the hast utilities recurse, so a few thousand
 * levels would overflow the stack.
 */
export const maxTreeElements = 50_000;
/** Four times the longest HTML body the API takes (a received message's 500 000 characters). */
export const maxTreeAttributeCharacters = 2_000_000;
export const maxDepth = 512;

/** Thrown from inside the tree builder, which stops it there. */
class TreeTooLarge extends ApiError {}

/** parse5's own tree adapter, counting what the tree builder creates: exact, and nothing to re-derive on a parse5 upgrade. */
function boundedTreeAdapter(): TreeAdapter<DefaultTreeAdapterMap> {
  let elements = 0;
  let attributeCharacters = 0;
  return {
    ...defaultTreeAdapter,
    createElement(tagName, namespaceURI, attrs) {
      elements += 1;
      for (const { name, value } of attrs) attributeCharacters += name.length + value.length;
      if (elements > maxTreeElements)
        throw new TreeTooLarge(
          "invalid_request",
          `HTML that parses into more than ${maxTreeElements} elements is not accepted (formatting tags left open are copied into every later block)`,
        );
      if (attributeCharacters > maxTreeAttributeCharacters)
        throw new TreeTooLarge(
          "invalid_request",
          `HTML whose parsed elements carry more than ${maxTreeAttributeCharacters} characters of attributes is not accepted (formatting tags left open are copied, attributes and all, into every later block)`,
        );
      return defaultTreeAdapter.createElement(tagName, namespaceURI, attrs);
    },
  };
}

/** The whole standards-mode document `html` makes, head included. */
export function parseDocument(html: string): Root {
  let document: Root;
  try {
    // Scripting off, as in a mail reader: `<noscript>` content is markup.
    const parsed = parse(`<!doctype html>${html}`, { treeAdapter: boundedTreeAdapter(), scriptingEnabled: false });
    document = fromParse5(parsed) as Root;
  } catch (error) {
    // The conversion of parse5's tree recurses: a stack overflow means markup far past the depth limit.
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
