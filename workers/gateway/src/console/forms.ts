import type { Context } from "hono";
import { maxReturnToLength } from "./return-to";

/**
 * Console forms: small urlencoded bodies. Anything larger is refused before it is parsed (413),
 * a field longer than its limit or a file where text belongs is a 400, each as an error page.
 */
export const maxFormBytes = 16 * 1024;
const defaultFieldLength = 256;
const fieldLengths: Record<string, number> = { password: 1024, return_to: maxReturnToLength };

/** A failure of a console request, shown as an error page with this status; nothing was changed. */
export class ConsoleProblem extends Error {
  constructor(
    readonly status: 400 | 403 | 404 | 409 | 413 | 429,
    readonly title: string,
    message: string,
  ) {
    super(message);
  }
}

export type Form = {
  get(name: string): string | undefined;
  all(name: string): string[];
};

export async function readForm(c: Context): Promise<Form> {
  const body = await c.req.parseBody({ all: true });
  const fields = new Map<string, string[]>();
  for (const [name, value] of Object.entries(body)) {
    const values = Array.isArray(value) ? value : [value];
    const limit = fieldLengths[name] ?? defaultFieldLength;
    for (const entry of values) {
      if (typeof entry !== "string") throw new ConsoleProblem(400, "Bad form", `The field ${name} takes text, not a file`);
      if (entry.length > limit) throw new ConsoleProblem(400, "Bad form", `The field ${name} is longer than ${limit} characters`);
    }
    fields.set(name, values as string[]);
  }
  return { get: (name) => fields.get(name)?.[0], all: (name) => fields.get(name) ?? [] };
}
