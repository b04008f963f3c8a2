import { z } from "@hono/zod-openapi";

/**
 * A named component (a schema with `.openapi("Name")`), or null. `schema.nullable()` would make the
 * component itself nullable in the document (zod-to-openapi 9 writes `type: ["object", "null"]` into
 * `components.schemas.Name`, so every other use of it, an array of assignees say, reads as nullable
 * too in a generated client); a union leaves the component as it is and says `anyOf: [$ref, null]`
 * where null is allowed.
 */
export const nullableRef = <Schema extends z.ZodType>(schema: Schema) => z.union([schema, z.null()]);
