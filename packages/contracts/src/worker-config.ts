import { z } from "zod";

/**
 * The pieces of a Worker's environment schema (each Worker has one: `config.ts`): a wrong value is an
 * error naming the variable when the Worker starts serving, not a `NaN` budget or an empty secret
 * deep inside a handler.
 */
export const configVars = {
  /** A secret or a required value: present and not empty. */
  secret: z.string({ error: "missing" }).min(1, "missing"),
  /** A development switch: absent, "true" or "false". */
  flag: z
    .enum(["true", "false"], { error: 'must be "true" or "false"' })
    .optional()
    .transform((value) => value === "true"),
  /** A positive decimal number, absent when not set. */
  positiveNumber: z
    .string()
    .regex(/^(\d+(\.\d*)?|\.\d+)$/, "must be a positive number")
    .transform(Number)
    .refine((value) => value > 0, "must be a positive number")
    .optional(),
  /** A binding (database, service, namespace, queue, bucket): present. */
  binding: <Binding>() => z.custom<Binding>((value) => typeof value === "object" && value !== null, "missing binding"),
};

/**
 * `schema` parsed once per environment object (an isolate's requests share theirs), as a function of
 * the environment; a misconfiguration throws naming every variable at fault.
 */
export function parsedOnce<Schema extends z.ZodType>(schema: Schema, worker: string): (env: object) => z.output<Schema> {
  const parsed = new WeakMap<object, z.output<Schema>>();
  return (env) => {
    const known = parsed.get(env);
    if (known !== undefined) return known;
    const result = schema.safeParse(env);
    if (!result.success) {
      const problems = result.error.issues.map((issue) => `${issue.path.join(".") || "environment"}: ${issue.message}`);
      throw new Error(`${worker} misconfigured: ${problems.join("; ")}`);
    }
    parsed.set(env, result.data);
    return result.data;
  };
}
