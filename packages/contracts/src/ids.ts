import { z } from "@hono/zod-openapi";

/** Identifiers are prefixed and at least 6 characters long (reference conventions). */
export const idSchema = (prefix: string, description?: string) =>
  z
    .string()
    .min(6)
    .openapi({ example: `${prefix}_01jd5q0m4x8r2w3y6z7a9b`, ...(description ? { description } : {}) });

export const timestampMs = z.number().int().openapi({ description: "Unix time in milliseconds", example: 1764000000000 });

/** Path parameter `{name}` holding an id. */
export const pathId = (name: string, prefix: string) =>
  idSchema(prefix).openapi({ param: { name, in: "path" }, example: `${prefix}_01jd5q0m4x8r2w3y6z7a9b` });

/** Body of every DELETE answer. */
export const deletedSchema = z.object({ deletedId: z.string() }).openapi("Deleted");

/** DELETE accepts no body or `{}`. */
export const emptyBodySchema = z.object({}).strict().openapi({ example: {} });
