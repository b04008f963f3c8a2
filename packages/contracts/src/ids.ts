import { z } from "@hono/zod-openapi";

/** Prefixed ids: a lowercase prefix, `_`, then lowercase letters and digits (`ws_01jd5q0m4x8r2w3y6z7a9b`). */
const idPattern = /^[a-z]{2,8}_[0-9a-z]{3,64}$/;

/**
 * What every id is, made once: each id field only adds its example and description to it. The
 * catalogue has some 150 id fields, and each chained step makes a schema: at the gateway's startup
 * (issue 30 item 7) that was a share of its script evaluation.
 */
const idString = z.string().min(6).max(73).regex(idPattern, "Not an id (a prefix, `_`, then lowercase letters and digits)");

/** Identifiers are prefixed and at least 6 characters long (reference conventions). */
export const idSchema = (prefix: string, description?: string) =>
  idString.openapi({ example: `${prefix}_01jd5q0m4x8r2w3y6z7a9b`, ...(description ? { description } : {}) });

/** The largest time a JavaScript `Date` can hold (year 275760), so every timestamp converts. */
const maxTimestampMs = 8_640_000_000_000_000;

export const timestampMs = z
  .number()
  .int()
  .min(0)
  .max(maxTimestampMs)
  .openapi({ description: "Unix time in milliseconds", example: 1764000000000, format: "int64" });

/** An integer with the bounds every integer of the document states (32-bit unless it needs more). */
export const integer = (min: number, max: number) =>
  z
    .number()
    .int()
    .min(min)
    .max(max)
    .openapi({ format: max > 2 ** 31 - 1 || min < -(2 ** 31) ? "int64" : "int32" });

/** Path parameter `{name}` holding an id. */
export const pathId = (name: string, prefix: string) =>
  idSchema(prefix).openapi({ param: { name, in: "path" }, example: `${prefix}_01jd5q0m4x8r2w3y6z7a9b` });

/** Body of every DELETE answer. */
export const deletedSchema = z.object({ deletedId: idSchema("rec") }).openapi("Deleted");

/** DELETE accepts no body or `{}`. */
export const emptyBodySchema = z.object({}).strict().openapi({ example: {} });

/** Ids of one kind in a query parameter, comma-separated: 1 to `max` of them, duplicates dropped. */
export const queryIdList = (name: string, prefix: string, max: number, description: string) =>
  z
    .string()
    .max(max * 74)
    .transform((list, context) => {
      const ids = z.array(idSchema(prefix)).min(1).max(max).safeParse(list.split(","));
      if (!ids.success) {
        context.addIssue({ code: "custom", message: `Expected 1 to ${max} ids, comma-separated` });
        return z.NEVER;
      }
      return [...new Set(ids.data)];
    })
    .openapi({
      param: { name, in: "query" },
      type: "string",
      maxLength: max * 74,
      description: `${description} (comma-separated ids, at most ${max}).`,
      example: `${prefix}_01jd5q0m4x8r2w3y6z7a9b`,
    });
