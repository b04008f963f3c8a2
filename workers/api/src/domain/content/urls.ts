/**
 * A link or image address is kept only if the WHATWG URL parser (the one browsers resolve it with)
 * reads it as an absolute URL with one of the given schemes. The parser strips the leading and
 * trailing control characters and spaces and the tabs and newlines inside that browsers ignore
 * (`java&#x09;script:` reaches it as `java\tscript:`, already entity-decoded by the HTML parser),
 * so what is checked is what a click or an image load would use. Relative URLs are refused: stored
 * content is shown on pages and in e-mails whose base we do not know.
 */
export function absoluteUrl(value: string, schemes: readonly string[]): string | undefined {
  const url = URL.parse(value);
  return url && schemes.includes(url.protocol) ? value : undefined;
}

export const linkSchemes = ["http:", "https:", "mailto:"] as const;
export const imageSchemes = ["http:", "https:"] as const;
