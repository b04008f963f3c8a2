/**
 * Logging of unexpected errors without the values they may quote. A failed drizzle query's message
 * ends in `params: …` (webhook secrets, record values, IPs), and D1 quotes offending values in its
 * own messages (`… for value '…'`); both would otherwise reach the logs through `error.stack`.
 */

export interface LoggedError {
  name: string;
  /** The first line is the name and the redacted message, then the stack frames as they were. */
  stack: string;
  cause?: LoggedError;
}

/** A cause chain deeper than this is cut: the first links say what happened. */
const maxCauseDepth = 3;

/** The message without its parameter part: drizzle's `params:` line and every single-quoted SQL literal. */
export function redactMessage(message: string): string {
  const [statement = ""] = message.split(/\n?\s*params:/);
  return statement.replace(/'(?:[^']|'')*'?/g, "'…'");
}

/** Class name as the code wrote it: drizzle's errors keep the generic `name` "Error". */
function nameOf(error: Error): string {
  const className = error.constructor?.name;
  return error.name === "Error" && className && className !== "Error" ? className : error.name;
}

/** The error's class, its redacted message and its stack frames (never the message lines of the original stack). */
export function describeError(error: unknown, depth = 0): LoggedError {
  if (!(error instanceof Error)) return { name: typeof error, stack: "(a thrown value that is not an Error)" };
  const name = nameOf(error);
  const frames = (error.stack ?? "").split("\n").filter((line) => /^\s+at /.test(line));
  const described: LoggedError = { name, stack: [`${name}: ${redactMessage(error.message)}`, ...frames].join("\n") };
  if (error.cause !== undefined && depth < maxCauseDepth) described.cause = describeError(error.cause, depth + 1);
  return described;
}

/**
 * Where an unexpected error happened: a request (its id, route template and the answer's code), or
 * work outside a request (`operation`, with a count where one helps). Nothing here quotes data.
 */
export type ErrorLogContext =
  | {
      requestId: string;
      /** Method and path template, e.g. `PATCH /api/v1/records/:recordId`: never the path with its ids. */
      route: string;
      code: string;
    }
  | { operation: string; requestId?: string; count?: number };

/**
 * One JSON line per unexpected error: enough to find the request or the work and the code, nothing
 * of its data. The one logger of unexpected errors in every Worker (test/error-log.test.ts keeps it so).
 */
export function logUnexpectedError(error: unknown, context: ErrorLogContext): void {
  console.error(JSON.stringify({ level: "error", ...context, error: describeError(error) }));
}
