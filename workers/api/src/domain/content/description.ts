import { ApiError } from "@crm/contracts";
import { plainTextOf, sanitizeHtml } from "./sanitize";

/**
 * Sanitized HTML and its plain text (derived unless given): task descriptions and note contents.
 * HTML the sanitizer refuses (nested or growing past its limits) is a 400 naming the field.
 */
export function sanitizedContent(field: string, html: string | undefined, plain: string | undefined) {
  try {
    const safe = html === undefined ? "" : sanitizeHtml(html);
    return { html: safe, plain: plain ?? plainTextOf(safe) };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    throw new ApiError(error.code, error.message, [{ path: field, message: error.message }]);
  }
}
