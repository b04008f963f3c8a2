import { z } from "@hono/zod-openapi";
import { ApiError } from "./errors";
import { inputPath } from "./input-paths";

/**
 * Strings as they enter the API. JSON can carry a lone UTF-16 surrogate (`"\ud800"`), which no
 * UTF-8 store can hold: D1 would keep U+FFFD and the write would answer a value that never reads
 * back. So every value that enters is checked once, in the validation step, and refused.
 */

/**
 * Paths (`fields.name` under `""`, `body.fields.name` under `"body"`) of the strings and property
 * names in `value` that are not well-formed Unicode. An explicit stack, not recursion: a value
 * nested at any depth is walked without exhausting the call stack.
 */
export function illFormedStringPaths(value: unknown, path: string): string[] {
  const found: string[] = [];
  // `found` marks a path found already (an ill-formed property name), kept in document order.
  const pending: [unknown, string, "found"?][] = [[value, path]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [item, at, mark] = next;
    if (mark) found.push(at);
    else if (typeof item === "string") {
      if (!item.isWellFormed()) found.push(at);
    } else if (Array.isArray(item)) {
      for (let index = item.length - 1; index >= 0; index--) pending.push([item[index], inputPath(at, index)]);
    } else if (item !== null && typeof item === "object") {
      for (const [key, child] of Object.entries(item).reverse()) {
        pending.push([child, inputPath(at, key)]);
        if (!key.isWellFormed()) pending.push([null, inputPath(at, key.toWellFormed()), "found"]);
      }
    }
  }
  return found;
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/**
 * JSON travels as UTF-8 (RFC 8259). Bytes that are not UTF-8 (a CESU-8 surrogate, a stray 0xFF)
 * would otherwise decode to U+FFFD without a word: the body is refused before anything reads it.
 */
export function assertUtf8Body(bytes: ArrayBuffer): void {
  try {
    strictUtf8.decode(bytes);
  } catch {
    throw new ApiError("invalid_request", "The request is not valid; see details.", [
      { path: "", in: "body", message: "Not valid UTF-8" },
    ]);
  }
}

/**
 * NUL, the other C0 controls (tab, CR and LF included) and DEL: never part of a one-line name,
 * and a NUL or a line break in a title breaks every export, log and header it later lands in.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this pattern's purpose
const noControlCharacters = /^[^\u0000-\u001f\u007f]*$/;
const controlCharacterMessage = "Control characters (NUL, tab, line breaks, …) are not allowed here";

/**
 * What a name may not hold: every control character (Unicode Cc, C1 included) and every format
 * character (Cf: bidirectional overrides and isolates, zero-width spaces, the BOM, invisible
 * operators), which make a name read differently from what it is ("Acme‮redaeR" shown reversed on
 * a consent page). The two joiners stay: Persian and the Indic scripts spell words with them, and
 * emoji sequences are built with the zero-width joiner.
 */
const plainName = /^(?:[^\p{Cc}\p{Cf}]|[\u200c\u200d])*$/u;
const nameCharacterMessage =
  "Control and invisible formatting characters (NUL, line breaks, bidirectional overrides, zero-width spaces, …) are not allowed here";

/**
 * One schema per bound, made on first use and then shared by every field with that bound: a schema
 * is never changed once made (each method returns a new one), and a catalogue of hundreds of fields
 * made each of them anew at every isolate's startup (issue 30 item 7).
 */
function sameSchemaFor<Schema>(made: Map<number, Schema>, max: number, make: () => Schema): Schema {
  let schema = made.get(max);
  if (schema === undefined) {
    schema = make();
    made.set(max, schema);
  }
  return schema;
}

/**
 * A one-line label given by a client (names, titles, option values and labels): trimmed, 1 to `max`
 * characters. The C0 pattern is what the OpenAPI document states (a JSON Schema pattern has no
 * Unicode property classes everywhere); the refinement then refuses the rest of `plainName`.
 */
const makeLabel = (max: number) =>
  z
    .string()
    .trim()
    .min(1)
    .max(max)
    .regex(noControlCharacters, controlCharacterMessage)
    .refine((text) => plainName.test(text), nameCharacterMessage);
const labels = new Map<number, ReturnType<typeof makeLabel>>();
export const label = (max = 255) => sameSchemaFor(labels, max, () => makeLabel(max));

/** An optional short one-line text such as an emoji or an icon name (may be empty). */
export const shortLabel = (max = 64) => z.string().max(max).regex(noControlCharacters, controlCharacterMessage);

const outputTexts = new Map<number, z.ZodString>();
/** A string in a response, bounded as the input that wrote it (names 255, HTML and text bodies 100 000). */
export const outputText = (max = 255) => sameSchemaFor(outputTexts, max, () => z.string().max(max));
