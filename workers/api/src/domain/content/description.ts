import { plainTextOf, sanitizeHtml } from "./sanitize";

/** Sanitized HTML and its plain text (derived unless given): task descriptions and note contents. */
export async function sanitizedContent(html: string | undefined, plain: string | undefined) {
  const safe = html === undefined ? "" : await sanitizeHtml(html);
  return { html: safe, plain: plain ?? (await plainTextOf(safe)) };
}
