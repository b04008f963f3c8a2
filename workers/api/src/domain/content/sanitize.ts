/**
 * HTML of task descriptions and notes, made safe with the runtime's HTMLRewriter (a streaming
 * parser, so malformed markup cannot confuse a regular expression): an allowlist of formatting
 * elements; scripts, styles, frames, forms and other active content dropped with their content;
 * every event handler attribute dropped; links only to http, https and mailto; inline styles that
 * could load a resource (`url(`, `@import`, `expression(`, `image-set(`) or hide escapes dropped.
 */

const allowedElements = new Set([
  "a",
  "b",
  "strong",
  "i",
  "em",
  "u",
  "s",
  "strike",
  "p",
  "br",
  "div",
  "span",
  "ul",
  "ol",
  "li",
  "blockquote",
  "code",
  "pre",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "hr",
  "table",
  "thead",
  "tbody",
  "tr",
  "th",
  "td",
  "sub",
  "sup",
  "mark",
  "small",
]);
const droppedWithContent = [
  "script",
  "style",
  "iframe",
  "frame",
  "frameset",
  "object",
  "embed",
  "applet",
  "noscript",
  "template",
  "form",
  "input",
  "button",
  "select",
  "textarea",
  "svg",
  "math",
  "link",
  "meta",
  "base",
  "title",
  "head",
];
const allowedAttributes: Record<string, Set<string>> = {
  a: new Set(["href", "title", "target", "rel"]),
  td: new Set(["colspan", "rowspan"]),
  th: new Set(["colspan", "rowspan"]),
  ol: new Set(["start"]),
};
const commonAttributes = new Set(["style", "title", "dir", "lang"]);
const safeLink = /^(https?:|mailto:)/i;
const loadingStyle = /url\s*\(|@import|expression\s*\(|image-set\s*\(|\\/i;
const blockElements = new Set(["p", "div", "li", "br", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre", "tr", "hr"]);

export async function sanitizeHtml(html: string): Promise<string> {
  const rewriter = droppedWithContent.reduce(
    (current, tag) =>
      current.on(tag, {
        element(element) {
          element.remove();
        },
      }),
    new HTMLRewriter(),
  );
  rewriter.on("*", {
    element(element) {
      const tag = element.tagName.toLowerCase();
      if (!allowedElements.has(tag)) {
        element.removeAndKeepContent();
        return;
      }
      for (const [name = "", value = ""] of [...element.attributes]) {
        const attribute = name.toLowerCase();
        const allowed = commonAttributes.has(attribute) || allowedAttributes[tag]?.has(attribute);
        const unsafe =
          // biome-ignore lint/suspicious/noControlCharactersInRegex: browsers skip control characters inside a scheme ("java\tscript:"), so they go before the check
          (attribute === "href" && !safeLink.test(value.trim().replace(/[\u0000-\u0020]/g, ""))) ||
          (attribute === "style" && loadingStyle.test(value));
        if (!allowed || unsafe) element.removeAttribute(name);
      }
      if (tag === "a" && element.getAttribute("target")) element.setAttribute("rel", "noopener noreferrer");
    },
    comments(comment) {
      comment.remove();
    },
  });
  return rewriter.transform(new Response(html, { headers: { "content-type": "text/html; charset=utf-8" } })).text();
}

/** The text of sanitized HTML: tags removed, entities decoded, a line break per block element. */
export async function plainTextOf(html: string): Promise<string> {
  const parts: string[] = [];
  const rewriter = new HTMLRewriter().on("*", {
    element(element) {
      const tag = element.tagName.toLowerCase();
      if (!blockElements.has(tag)) return;
      parts.push("\n");
      // A block also ends its line; void elements (br, hr) have no end tag to wait for.
      if (tag !== "br" && tag !== "hr") element.onEndTag(() => void parts.push("\n"));
    },
    text(text) {
      parts.push(text.text);
    },
  });
  await rewriter.transform(new Response(html, { headers: { "content-type": "text/html; charset=utf-8" } })).text();
  return decodeEntities(parts.join(""))
    .replace(/[ \t]+\n/g, "\n")
    .replace(/\n{2,}/g, "\n")
    .trim();
}

const entities: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (match, entity: string) => {
    if (entity[0] === "#") {
      const code = entity[1]?.toLowerCase() === "x" ? Number.parseInt(entity.slice(2), 16) : Number.parseInt(entity.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code < 0x110000 ? String.fromCodePoint(code) : match;
    }
    return entities[entity.toLowerCase()] ?? match;
  });
}
