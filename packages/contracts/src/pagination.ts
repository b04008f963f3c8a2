import { z } from "@hono/zod-openapi";

/** Longest cursor accepted: Cloudflare refuses URLs over 16 KiB, so a longer one could never come back. */
const maxCursorLength = 16_384;

export const cursorSchema = z.string().min(1).max(maxCursorLength);

export const paginationSchema = z
  .object({
    cursor: cursorSchema.nullable().openapi({
      description: "Continue token; null when there is nothing further.",
      // Only in answers: a request's cursor is one the service issued, so its parameter shows none to send.
      example: "eyJwIjpbMTc2NDAwMDAwMDAwMCwiY252XzAxamQ1cTBtNHg4cjJ3M3k2ejdhOWIiXX0.k3Jd9Qe",
    }),
    hasMore: z.boolean().openapi({ example: true }),
  })
  .openapi("Pagination");

export type Pagination = z.infer<typeof paginationSchema>;

/**
 * An integer query parameter, written as a plain decimal integer: digits only, no sign, no
 * leading zero, no exponent, no spaces (`1e2`, `+5`, `0x10`, ` 5`, `5.0`, `05`, `` → 400). One
 * spelling per number keeps caches, idempotency and logs unambiguous.
 */
export const queryInteger = (name: string, min: number, max: number) =>
  z
    .string()
    .regex(/^(0|[1-9][0-9]{0,15})$/, "Expected a plain decimal integer (digits only)")
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    .openapi({
      param: { name, in: "query" },
      type: "integer",
      format: max > 2 ** 31 - 1 ? "int64" : "int32",
      minimum: min,
      maximum: max,
    });

/** `limit` and `cursor` of every list operation: limit 1–100 (default 50), never clamped. */
export const pageQuery = {
  limit: queryInteger("limit", 1, 100)
    .default(50)
    .openapi({ description: "Page size, 1 to 100 (default 50).", example: 50, default: 50 }),
  cursor: cursorSchema
    .optional()
    .openapi({ param: { name: "cursor", in: "query" }, description: "`pagination.cursor` of the previous page." }),
};

export const listResponse = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item).max(100), pagination: paginationSchema });
