import type { z } from "@hono/zod-openapi";

/**
 * A request property the server fills in when a client leaves it out. The default is stated in
 * the description, not as `default`: openapi-typescript makes a property with a `default`
 * required in generated types (its `defaultNonNullable`), though the server accepts it absent.
 */
export const defaulted = <T extends z.ZodType>(schema: T, value: z.output<T>, description: string) =>
  schema
    .optional()
    .transform((given) => given ?? value)
    .openapi({ description: `${description} Default \`${JSON.stringify(value)}\`.` });
