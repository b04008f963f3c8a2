import { z } from "@hono/zod-openapi";

/** Identifiers are prefixed and at least 6 characters long (reference conventions). */
export const idSchema = (prefix: string, description?: string) =>
  z
    .string()
    .min(6)
    .openapi({ example: `${prefix}_01jd5q0m4x8r2w3y6z7a9b`, ...(description ? { description } : {}) });

export const timestampMs = z.number().int().openapi({ description: "Unix time in milliseconds", example: 1764000000000 });
