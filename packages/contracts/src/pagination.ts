import { z } from "@hono/zod-openapi";

export const paginationSchema = z
  .object({
    cursor: z.string().nullable().openapi({ description: "Continue token; null when there is nothing further." }),
    hasMore: z.boolean(),
  })
  .openapi("Pagination");

export type Pagination = z.infer<typeof paginationSchema>;

/** `limit` and `cursor` of every list operation: limit 1–100 (default 50), never clamped. */
export const pageQuery = {
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .default(50)
    .openapi({ param: { name: "limit", in: "query" }, description: "Page size, 1 to 100.", example: 50 }),
  cursor: z
    .string()
    .min(1)
    .optional()
    .openapi({ param: { name: "cursor", in: "query" }, description: "`pagination.cursor` of the previous page." }),
};

export const listResponse = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item), pagination: paginationSchema });
