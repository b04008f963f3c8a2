import { describe, expect, it } from "vitest";
import {
  type Element,
  maxTreeAttributeCharacters,
  maxTreeElements,
  parseDocument,
  type Root,
} from "../workers/api/src/domain/content/parse";
import { sanitizeHtml } from "../workers/api/src/domain/content/sanitize";

/**
 * The bound on the tree the HTML parser builds (parse.ts counts in parse5's tree adapter), in
 * workerd: inputs whose tree grows with the square of their length are refused as the parser gets
 * there; the count is exact, so the largest tree allowed is the limit itself; ordinary content, large
 * e-mails included, passes.
 */

const formatting = ["a", "b", "big", "code", "em", "font", "i", "nobr", "s", "small", "strike", "strong", "tt", "u"];
// Three of each formatting element left open in a paragraph: every later paragraph re-creates all 42.
const openFormatting = `<p>${formatting.map((name) => `<${name}>`.repeat(3)).join("")}</p>`;

function elementCount(root: Root): number {
  let count = 0;
  const pending: (Root | Element)[] = [root];
  for (let node = pending.pop(); node; node = pending.pop()) {
    if (node.type === "element") {
      count++;
      if (node.content) pending.push(node.content);
    }
    for (const child of node.children) if (child.type === "element") pending.push(child);
  }
  return count;
}

const refusalOf = (html: string) => {
  try {
    sanitizeHtml(html);
    return undefined;
  } catch (error) {
    return error;
  }
};

const parsesUnderLimit = (html: string) => refusalOf(html) === undefined;

describe("the bound on the parsed tree", () => {
  it("refuses inputs whose tree would grow with the square of their length", () => {
    const attacks: Record<string, [string, string]> = {
      "formatting left open across paragraphs": [
        openFormatting + "<p>y</p>".repeat(4_000),
        `more than ${maxTreeElements} elements`,
      ],
      "one long class copied into every paragraph (whatwg/html#10772)": [
        `<p><b class="${"a ".repeat(2_500)}">${"<p>a".repeat(5_000)}`,
        `more than ${maxTreeAttributeCharacters} characters of attributes`,
      ],
      "distinct attributes defeating the Noah's Ark clause": [
        `<p>${Array.from({ length: 1_000 }, (_, i) => `<b class=c${i}>`).join("")}</p>${"<p>y</p>".repeat(1_000)}`,
        `more than ${maxTreeElements} elements`,
      ],
      "misnested formatting (lexbor/lexbor#340)": [
        `${Array.from({ length: 3_000 }, (_, i) => `<b ${i}>`).join("")}${Array.from({ length: 3_000 }, (_, i) => `<i ${i}>`).join("")}${"x</b>".repeat(3_000)}`,
        `more than ${maxTreeElements} elements`,
      ],
      "the same inside foreign content and after it": [
        `<svg></svg>${openFormatting}${"<p>y</p>".repeat(4_000)}`,
        `more than ${maxTreeElements} elements`,
      ],
    };
    for (const [name, [html, reason]] of Object.entries(attacks)) {
      expect(html.length, name).toBeLessThan(100_000);
      expect(refusalOf(html), name).toMatchObject({ code: "invalid_request", message: expect.stringContaining(reason) });
    }
  });

  it("counts exactly: the largest tree it allows is the limit itself, and one more block is refused", () => {
    // Each paragraph re-creates the 42 open formatting elements beside the p itself: the count tells where the limit falls.
    const paragraphs = (count: number) => openFormatting + "<p>y</p>".repeat(count);
    const base = elementCount(parseDocument(paragraphs(1)));
    const perParagraph = elementCount(parseDocument(paragraphs(2))) - base;
    const fitting = 1 + Math.floor((maxTreeElements - base) / perParagraph);
    const largest = paragraphs(fitting);
    expect(elementCount(parseDocument(largest))).toBeGreaterThan(maxTreeElements - 50);
    expect(elementCount(parseDocument(largest))).toBeLessThanOrEqual(maxTreeElements);
    expect(parsesUnderLimit(`${largest}<p>y</p>`)).toBe(false);
    expect(sanitizeHtml(largest)).toContain("<a><b><b><b><code><code><code>");
  });

  it("parses seeded random markup as before, never refusing small inputs", () => {
    const tokens = [
      ...formatting.flatMap((name) => [`<${name}>`, `</${name}>`, `<${name} x=1>`, `<${name} x=2>`]),
      ...["p", "div", "li", "td", "tr", "table", "caption", "blockquote", "h2", "button", "object", "template", "span"].flatMap(
        (name) => [`<${name}>`, `</${name}>`],
      ),
      ...[
        "<!--",
        "-->",
        "<!-->",
        "<style>",
        "</style>",
        "<title>",
        "</title>",
        "<textarea>",
        "<xmp>",
        "</xmp>",
        '<b title="',
        '">',
      ],
      ...["<svg>", "</svg>", "<math>", "<mtext>", "<select>", "<script>", "</script>", "<plaintext>", "<frameset>", "<image>"],
      ...["<br>", "</br>", "<hr>", "<dd>", "<dt>", "<ul>", "<div><div><div><div><div><div><div><div><div>", "x", "x", "'", '"'],
    ];
    let seed = 11;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    for (let run = 0; run < 1_500; run++) {
      const length = 5 + Math.floor(random() * 150);
      const html = Array.from({ length }, () => tokens[Math.floor(random() * tokens.length)]).join("");
      expect(elementCount(parseDocument(html)), html).toBeLessThanOrEqual(maxTreeElements);
    }
  });

  it("lets ordinary content through, large e-mails included", () => {
    const fill = (unit: string) => unit.repeat(Math.floor(99_000 / unit.length));
    const ordinary = [
      fill('<p>Hello <b>world</b>, see <a href="https://example.com/x">the offer</a> &amp; <i>more</i>.</p>'),
      `<html><head><title>News</title><style>td{color:#333}</style></head><body><font face="Arial"><font size="2">${fill(
        '<table><tr><td><font color="#333"><a href="https://example.com/track?id=1234567890">Read <b>more</b></a></font></td></tr></table>',
      )}</font></font></body></html>`,
      fill("<ul><li>one<li>two</ul><p>Unclosed <b>bold<p>next"),
      fill('<p class="x" style="color:#333" data-id="1234567890"><span title="a long title attribute">x</span></p>'),
    ];
    for (const html of ordinary) expect(sanitizeHtml(html).length).toBeGreaterThan(0);
  });
});
