import { ApiError } from "@crm/contracts";
import { describe, expect, it } from "vitest";
import { type Element, maxDepth, parseDocument, type Root } from "../workers/api/src/domain/content/parse";
import { plainTextOf, sanitizeHtml } from "../workers/api/src/domain/content/sanitize";
import { contentSchema } from "../workers/api/src/domain/content/schema";
import { xssCorpus } from "./xss-corpus";

/**
 * The sanitizer against filter-evasion payloads, in workerd. Each output is parsed again with the
 * same spec parser a reader's browser uses, and the resulting tree (not the string) is checked.
 */

const allowedElements = new Set([...(contentSchema.tagNames ?? []), "html", "head", "body"]);
// Attributes a browser loads or navigates to (hast property names).
const urlProperties = new Set([
  ...["href", "src", "action", "formAction", "xLinkHref", "srcSet", "data", "poster", "background", "cite"],
  ...["codeBase", "longDesc", "ping", "dynsrc", "lowsrc", "manifest", "icon", "archive"],
]);
const allowedSchemes = new Set(["http", "https", "mailto"]);

function elementsOf(nodes: readonly (Root | Root["children"][number])[]): Element[] {
  return nodes.flatMap((node) => {
    if (node.type !== "element" && node.type !== "root") return [];
    const template = node.type === "element" && node.content ? [node.content] : [];
    return [...(node.type === "element" ? [node] : []), ...elementsOf([...node.children, ...template])];
  });
}

/** What makes `html`, as a browser parses it, able to run or load something; empty when safe. */
function dangersIn(html: string): string[] {
  const elements = elementsOf([parseDocument(html)]);
  return elements.flatMap((element) => {
    const found: string[] = [];
    if (!allowedElements.has(element.tagName)) found.push(`element <${element.tagName}>`);
    if (element.tagName === "head" && element.children.length > 0) found.push("content in <head>");
    for (const [name, value] of Object.entries(element.properties)) {
      const text = Array.isArray(value) ? value.join(" ") : String(value);
      if (/^on/i.test(name)) found.push(`handler ${name}`);
      if (/^srcdoc$/i.test(name)) found.push("srcdoc");
      if (urlProperties.has(name)) {
        // Browsers skip control characters and spaces around and tabs/newlines inside a scheme.
        // biome-ignore lint/suspicious/noControlCharactersInRegex: those are exactly what is stripped
        const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(text.replace(/[\u0000-\u0020]/g, ""))?.[1]?.toLowerCase();
        if (scheme && !allowedSchemes.has(scheme)) found.push(`${name} with scheme ${scheme}`);
      }
      if (name === "style" && /url\s*\(|expression|\\/i.test(text)) found.push(`style ${text}`);
    }
    return found;
  });
}

describe("the HTML sanitizer", () => {
  it("has a corpus of at least 100 filter-evasion payloads", () => {
    expect(new Set(xssCorpus).size).toBe(xssCorpus.length);
    expect(xssCorpus.length).toBeGreaterThanOrEqual(100);
  });

  it("leaves nothing executable in the output of any payload, as a browser would parse it", () => {
    for (const payload of xssCorpus) expect(dangersIn(sanitizeHtml(payload)), payload).toEqual([]);
  });

  it("is idempotent: sanitizing its own output changes nothing", () => {
    for (const payload of xssCorpus) {
      const once = sanitizeHtml(payload);
      expect(sanitizeHtml(once), payload).toBe(once);
    }
  });

  it("finds the dangers this test looks for (the check itself can fail)", () => {
    expect(dangersIn("<b></b><script>alert(1)</script>")).toEqual(["element <script>"]);
    expect(dangersIn("<img src=x onerror=alert(1)>")).toEqual(["handler onError"]);
    expect(dangersIn('<a href="java&#x09;script:alert(1)">x</a>')).toEqual(["href with scheme javascript"]);
    expect(dangersIn('<p style="background:u&#114;l(x)">x</p>')).toEqual(["style background:url(x)"]);
    expect(dangersIn("<meta http-equiv=refresh content=0>")).toEqual(["content in <head>", "element <meta>"]);
  });

  it("escapes < and > in attribute values, so the stored HTML stays inert in raw-text contexts too", () => {
    expect(sanitizeHtml('<p title="</textarea><img src=x onerror=alert(1)>">x</p>')).toBe(
      '<p title="&lt;/textarea&gt;&lt;img src=x onerror=alert(1)&gt;">x</p>',
    );
    expect(sanitizeHtml(`<p title='a"<b>"'>x</p>`)).toBe('<p title="a&quot;&lt;b&gt;&quot;">x</p>');
    // Every tag of every output, read as raw text (a <textarea>'s content), closes where it should.
    for (const payload of xssCorpus) {
      const tags = sanitizeHtml(payload).match(/<[^>]*>/g) ?? [];
      for (const tag of tags) expect(tag.slice(1), payload).not.toMatch(/</);
    }
  });

  it("turns the raw-text tricks into nothing, not into live markup", () => {
    expect(sanitizeHtml("<b><xmp></b><script>alert(1)</script></xmp>")).toBe("<b></b>");
    expect(sanitizeHtml("<noembed><img src=x onerror=alert(1)></noembed>after")).toBe("after");
    expect(sanitizeHtml("<noframes><img src=x onerror=alert(1)></noframes>")).toBe("");
    expect(sanitizeHtml("<p>before<plaintext></p><script>alert(1)</script>")).toBe("<p>before</p>");
    expect(sanitizeHtml('<div style="background:u&#114;l(https://evil.example/x)">x</div>')).toBe("<div>x</div>");
  });

  it("keeps the formatting a rich-text editor and an e-mail body need", () => {
    const kept = [
      "<h2>Plan</h2><p>Step <b>one</b>, <strong>two</strong>, <i>three</i>, <em>four</em>, <u>five</u>, <s>six</s></p>",
      '<ul><li>a</li></ul><ol start="3"><li>b</li></ol><blockquote>quoted</blockquote><pre><code>x = 1</code></pre><hr>',
      '<table><tbody><tr><th colspan="2">Head</th></tr><tr><td rowspan="2">a</td><td>b<sub>1</sub><sup>2</sup></td></tr></tbody></table>',
      '<p style="color: #c00; text-align: center">red</p><span dir="rtl" lang="he" title="t">x</span><br>',
      '<img src="https://cdn.example/logo.png" alt="Logo" width="120" height="40">',
    ];
    for (const html of kept) expect(sanitizeHtml(html)).toBe(html);
  });

  it("keeps only http, https and mailto links, with a safe rel, and absolute http(s) images", () => {
    expect(sanitizeHtml('<a href="https://example.com/x" target="_blank">x</a>')).toBe(
      '<a href="https://example.com/x" target="_blank" rel="noopener noreferrer nofollow">x</a>',
    );
    expect(sanitizeHtml('<a href="mailto:sales@acme.example" rel="opener" target="_top">m</a>')).toBe(
      '<a href="mailto:sales@acme.example" rel="noopener noreferrer nofollow">m</a>',
    );
    for (const href of [
      "javascript:alert(1)",
      "/relative",
      "//evil.example/x",
      "#top",
      "data:text/html,x",
      "HTTPS://EXAMPLE.COM",
    ])
      expect(sanitizeHtml(`<a href="${href}">x</a>`), href).toBe("<a>x</a>");
    for (const src of ["x", "data:image/png;base64,AAAA", "javascript:alert(1)", "cid:logo"])
      expect(sanitizeHtml(`<p><img src="${src}">x</p>`), src).toBe("<p>x</p>");
  });

  it("keeps a few style properties with plain values and drops every other declaration", () => {
    expect(
      sanitizeHtml('<p style="COLOR: Red; position: fixed; background-color:#ffeeaa;font-weight:bold;z-index:99">x</p>'),
    ).toBe('<p style="color: Red; background-color: #ffeeaa; font-weight: bold">x</p>');
    for (const style of [
      "color: rgb(1,2,3)",
      "color: red\\;",
      "color:/**/red",
      "text-decoration: url-like",
      "color: expression",
      "color: red !important",
      "color: 'red'",
      "font-family: Arial",
    ])
      expect(sanitizeHtml(`<p style="${style}">x</p>`), style).toBe("<p>x</p>");
  });

  it("drops ids, names and classes, which could clobber the page's DOM or borrow its styles", () => {
    expect(
      sanitizeHtml('<p id="cookie" name="x" class="admin-banner">x</p><img name="body" src="https://a.example/i.png">'),
    ).toBe('<p>x</p><img src="https://a.example/i.png">');
  });

  it("reads whole e-mail documents: the head is left out, the body kept", () => {
    const email =
      '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN"><html><head><title>News</title><style>p{color:red}</style><base href="https://evil.example/"></head><body onload="alert(1)"><p>Hello</p></body></html>';
    expect(sanitizeHtml(email)).toBe("<p>Hello</p>");
  });

  it("gives the plain text as innerText does, with entities decoded", () => {
    expect(plainTextOf("<h1>Plan</h1><p>Tom &amp; Jerry</p><ul><li>a</li><li>b</li></ul>x<br>y")).toBe(
      "Plan\n\nTom & Jerry\n\na\nb\nx\ny",
    );
  });

  it("refuses markup nested deeper than browsers nest it with invalid_request, never a stack overflow", () => {
    // html and body are the first two levels.
    const nested = (levels: number) => `${"<div>".repeat(levels)}x`;
    expect(sanitizeHtml(nested(maxDepth - 2))).toBe(`${"<div>".repeat(maxDepth - 2)}x${"</div>".repeat(maxDepth - 2)}`);
    for (const levels of [maxDepth - 1, 20_000]) {
      const refused = (() => {
        try {
          return sanitizeHtml(nested(levels));
        } catch (error) {
          return error;
        }
      })();
      expect(refused, `${levels} levels`).toBeInstanceOf(ApiError);
      expect(refused).toMatchObject({ code: "invalid_request", message: expect.stringContaining(`${maxDepth} levels`) });
    }
    expect(() => plainTextOf(nested(20_000))).toThrow(ApiError);
  });
});
