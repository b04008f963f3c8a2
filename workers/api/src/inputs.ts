import type { Operation } from "@crm/contracts";
import type { z } from "@hono/zod-openapi";

/** The validated JSON body of an operation, as its handler reads it and hands it to a service. */
export type BodyOf<O extends Operation> = O["route"]["request"] extends {
  body: { content: { "application/json": { schema: infer Schema extends z.ZodType } } };
}
  ? z.output<Schema>
  : never;

/** The validated query of an operation. */
export type QueryOf<O extends Operation> = O["route"]["request"] extends { query: infer Schema extends z.ZodType }
  ? z.output<Schema>
  : never;
