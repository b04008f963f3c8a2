import { describe, expect, it } from "vitest";
import { treeSizeBound } from "../workers/api/src/domain/content/growth";
import { type Element, maxTreeElements, parseDocument, type Root } from "../workers/api/src/domain/content/parse";
import { sanitizeHtml } from "../workers/api/src/domain/content/sanitize";

/**
 * The bound on the tree the HTML parser builds (growth.ts), in workerd: inputs whose tree grows
 * with the square of their length are refused before parsing; the bound is never below the real
 * element count; ordinary content, large e-mails included, passes.
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

describe("the bound on the parsed tree", () => {
  it("refuses, before parsing, inputs whose tree would grow with the square of their length", () => {
    const attacks: Record<string, string> = {
      "formatting left open across paragraphs": openFormatting + "<p>y</p>".repeat(4_000),
      "one long class copied into every paragraph (whatwg/html#10772)": `<p><b class="${"a ".repeat(2_500)}">${"<p>a".repeat(5_000)}`,
      "distinct attributes defeating the Noah's Ark clause": `<p>${Array.from({ length: 1_000 }, (_, i) => `<b class=c${i}>`).join("")}</p>${"<p>y</p>".repeat(1_000)}`,
      "misnested formatting (lexbor/lexbor#340)": `${Array.from({ length: 3_000 }, (_, i) => `<b ${i}>`).join("")}${Array.from({ length: 3_000 }, (_, i) => `<i ${i}>`).join("")}${"x</b>".repeat(3_000)}`,
      "the same after an <svg>, which the scan does not follow": `<svg></svg>${openFormatting}${"<p>y</p>".repeat(4_000)}`,
    };
    for (const [name, html] of Object.entries(attacks)) {
      expect(html.length, name).toBeLessThan(100_000);
      expect(treeSizeBound(html), name).toBeGreaterThan(maxTreeElements);
      expect(refusalOf(html), name).toMatchObject({
        code: "invalid_request",
        message: expect.stringContaining(`more than ${maxTreeElements} elements`),
      });
    }
  });

  it("is never below the number of elements the parser makes (seeded random markup)", () => {
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
      expect(treeSizeBound(html), html).toBeGreaterThanOrEqual(elementCount(parseDocument(html)));
    }
  });

  it("lets ordinary content through, large e-mails included, and the largest tree it allows sanitizes", () => {
    const fill = (unit: string) => unit.repeat(Math.floor(99_000 / unit.length));
    const ordinary = [
      fill('<p>Hello <b>world</b>, see <a href="https://example.com/x">the offer</a> &amp; <i>more</i>.</p>'),
      `<html><head><title>News</title><style>td{color:#333}</style></head><body><font face="Arial"><font size="2">${fill(
        '<table><tr><td><font color="#333"><a href="https://example.com/track?id=1234567890">Read <b>more</b></a></font></td></tr></table>',
      )}</font></font></body></html>`,
      fill("<ul><li>one<li>two</ul><p>Unclosed <b>bold<p>next"),
    ];
    for (const html of ordinary) {
      expect(treeSizeBound(html)).toBeLessThan(maxTreeElements);
      expect(sanitizeHtml(html).length).toBeGreaterThan(0);
    }
    let paragraphs = 1;
    while (treeSizeBound(openFormatting + "<p>y</p>".repeat(paragraphs * 2)) <= maxTreeElements) paragraphs *= 2;
    const largest = openFormatting + "<p>y</p>".repeat(paragraphs);
    expect(elementCount(parseDocument(largest))).toBeGreaterThan(maxTreeElements / 3);
    expect(sanitizeHtml(largest)).toContain("<a><b><b><b><code><code><code>");
  });
});
