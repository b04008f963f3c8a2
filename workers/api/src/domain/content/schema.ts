import type { Schema } from "hast-util-sanitize";

/**
 * What survives sanitizing: the formatting a rich-text editor and an e-mail body need, and nothing
 * that runs, loads a document, submits, or names a node. Every key is set, because
 * hast-util-sanitize fills a missing key from its GitHub default, which is wider than ours.
 */

const headings = ["h1", "h2", "h3", "h4", "h5", "h6"];
const tableParts = ["caption", "thead", "tbody", "tfoot", "tr", "th", "td"];

export const contentSchema: Schema = {
  tagNames: [
    ...["p", "br", "div", "span", "hr", "blockquote", "pre", "code", ...headings],
    ...["b", "strong", "i", "em", "u", "s", "strike", "sub", "sup", "mark", "small"],
    ...["a", "img", "ul", "ol", "li", "table", ...tableParts],
  ],
  // Table parts outside a table would be moved or dropped by the next parser; list items are harmless.
  ancestors: Object.fromEntries(tableParts.map((part) => [part, ["table"]])),
  attributes: {
    a: ["href", "title", ["target", "_blank"]],
    img: ["src", "alt", "title", "width", "height"],
    ol: ["start"],
    td: ["colSpan", "rowSpan"],
    th: ["colSpan", "rowSpan"],
    // `style` is checked property by property afterwards (style.ts). No `id`, `name` or `class`:
    // ids and names clobber the page's DOM (`document.foo`, `form.action`), classes borrow the
    // page's own styles.
    "*": ["title", "lang", ["dir", "ltr", "rtl", "auto"], "style"],
  },
  // Schemes are checked again with the URL parser afterwards (urls.ts), which also refuses relative URLs.
  protocols: { href: ["http", "https", "mailto"], src: ["http", "https"] },
  clobber: [],
  clobberPrefix: "",
  required: {},
  // Dropped with their content rather than unwrapped: their content is code, a raw-text trap
  // (`<xmp></b><script>`), another document, controls, or markup from a foreign namespace (SVG and
  // MathML are where mutation XSS lives; there is nothing in them a reader needs).
  strip: [
    ...["script", "style", "template", "noscript", "noembed", "noframes", "xmp", "plaintext", "textarea", "title"],
    ...["iframe", "frame", "frameset", "object", "embed", "applet", "portal", "fencedframe"],
    ...["svg", "math", "form", "button", "select", "datalist", "colgroup", "marquee", "head", "dialog"],
  ],
  allowComments: false,
  allowDoctypes: false,
};
