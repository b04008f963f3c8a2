import { catalogue, type Operation, openApiDocument } from "@crm/contracts";
import { beforeAll, describe, expect, it } from "vitest";
import { credentialFor } from "./console-browser";
import { expectStatus, objectTypesOf, unique } from "./crm";
import { call, cast } from "./stack";

/**
 * Strings as they enter: a lone UTF-16 surrogate is refused wherever a string comes in (a UTF-8
 * store cannot hold one, so it would read back as U+FFFD), and so is a body whose bytes are not
 * UTF-8; names, titles, labels and slugs refuse control characters, while text bodies keep their
 * tabs and line breaks.
 */

interface ErrorBody {
  error: { code: string; details?: { path: string; message: string }[] };
}

const document = openApiDocument("http://127.0.0.1:8787");
const loneSurrogate = "\ud83d";

function bodyExample(operation: Operation): Record<string, unknown> | undefined {
  const pathItem = document.paths?.[operation.path] as Record<
    string,
    { requestBody?: { content: Record<string, { schema: { $ref?: string; example?: unknown } }> } }
  >;
  let schema = pathItem?.[operation.method]?.requestBody?.content["application/json"]?.schema;
  if (schema?.$ref) schema = document.components?.schemas?.[schema.$ref.split("/").pop() as string] as { example?: unknown };
  return schema?.example as Record<string, unknown> | undefined;
}

/** Every string of a JSON value with its path (`fields.name`), for putting a lone surrogate in each. */
function stringPaths(value: unknown, path: string[] = []): string[][] {
  if (typeof value === "string") return [path];
  if (Array.isArray(value)) return value.flatMap((item, index) => stringPaths(item, [...path, String(index)]));
  if (value !== null && typeof value === "object")
    return Object.entries(value).flatMap(([name, item]) => stringPaths(item, [...path, name]));
  return [];
}

function withStringAt(value: unknown, path: string[], replace: (text: string) => string): unknown {
  if (path.length === 0) return replace(value as string);
  const [head, ...rest] = path as [string, ...string[]];
  if (Array.isArray(value))
    return value.map((item, index) => (String(index) === head ? withStringAt(item, rest, replace) : item));
  return { ...(value as object), [head]: withStringAt((value as Record<string, unknown>)[head], rest, replace) };
}

const pathOf = (operation: Operation) => operation.path.replace(/\{[^}]+\}/g, "zz_0000000000");

// Signed inbound webhooks check their signature before their body: test/meetings-inbound.test.ts sends them signed.
const withBodies = catalogue.flatMap((operation) => {
  if (operation.auth === "signature") return [];
  const example = bodyExample(operation);
  return example && stringPaths(example).length > 0
    ? [{ name: `${operation.method.toUpperCase()} ${operation.path}`, operation, example }]
    : [];
});

describe.each(withBodies)("lone surrogates: $name", ({ operation, example }) => {
  let credential: Record<string, string>;
  beforeAll(async () => {
    credential = await credentialFor(operation);
  });

  it("400 naming each string of the body that holds a lone surrogate", async () => {
    for (const path of stringPaths(example)) {
      const json = withStringAt(example, path, (text) => `${text}${loneSurrogate}`);
      const query = operation.operationId === "assertRecord" ? "?matchingField=email" : "";
      const response = await call(`${pathOf(operation)}${query}`, {
        method: operation.method.toUpperCase(),
        headers: credential,
        json,
      });
      expect(response.status, path.join(".")).toBe(400);
      const { error } = (await response.json()) as ErrorBody;
      expect(error.code).toBe("invalid_request");
      expect(error.details).toContainEqual({
        path: ["body", ...path].join("."),
        message: "Not well-formed Unicode (a lone UTF-16 surrogate)",
      });
    }
  });
});

describe("strings in names, titles, labels and slugs", () => {
  let key: string;
  let workspaceId: string;
  let recordId: string;
  let objectTypeId: string;
  beforeAll(async () => {
    const { alice, sales } = await cast();
    key = alice.apiKey;
    workspaceId = sales.id;
    const [people] = await objectTypesOf(key, sales.id);
    objectTypeId = people?.id as string;
    recordId = (
      await expectStatus<{ record: { id: string } }>(201, "/records", {
        method: "POST",
        key,
        json: { objectTypeId, fields: { name: `Person ${unique()}` } },
      })
    ).record.id;
  });

  it("refuses a lone surrogate in a record's field values and field names, which no schema types", async () => {
    for (const fields of [{ name: `Ada ${loneSurrogate}` }, { [`name${loneSurrogate}`]: "Ada" }]) {
      const response = await call("/records", { method: "POST", key, json: { objectTypeId, fields } });
      expect(response.status).toBe(400);
      const { error } = (await response.json()) as ErrorBody;
      expect(error.details?.map((detail) => detail.message)).toContain("Not well-formed Unicode (a lone UTF-16 surrogate)");
    }
  });

  it("refuses a body whose bytes are not UTF-8 instead of reading U+FFFD into it", async () => {
    const encoder = new TextEncoder();
    // A CESU-8 encoded lone surrogate, and a byte that never occurs in UTF-8.
    for (const bytes of [[0xed, 0xa0, 0xbd], [0xff]]) {
      const body = new Uint8Array([...encoder.encode('{"title":"Call '), ...bytes, ...encoder.encode('"}')]);
      const response = await call(`/records/${recordId}/notes`, {
        method: "POST",
        key,
        body,
        headers: { "content-type": "application/json" },
      });
      expect(response.status).toBe(400);
      const { error } = (await response.json()) as ErrorBody;
      expect(error.details).toEqual([{ path: "body", message: "Not valid UTF-8" }]);
    }
  });

  it("keeps a well-formed surrogate pair (an emoji) as written", async () => {
    const title = `Call 📞 ${unique()}`;
    const { note } = await expectStatus<{ note: { id: string; title: string } }>(201, `/records/${recordId}/notes`, {
      method: "POST",
      key,
      json: { title },
    });
    expect(note.title).toBe(title);
    const read = await expectStatus<{ note: { title: string } }>(200, `/notes/${note.id}`, { key });
    expect(read.note.title).toBe(title);
  });

  // C0 and C1 controls, DEL, and format characters: bidirectional override and isolate, zero-width space, BOM, soft hyphen.
  const controls = ["\u0000", "\t", "\n", "\r", "\u001b", "\u007f", "\u0085", "\u202e", "\u2066", "\u200b", "\ufeff", "\u00ad"];
  const labelled: { name: string; request: () => { path: string; method: string; json: Record<string, unknown> }; at: string }[] =
    [
      {
        name: "object type names",
        request: () => ({ path: "/crm/objects", method: "POST", json: { workspaceId, nameSingular: "A", namePlural: "As" } }),
        at: "nameSingular",
      },
      {
        name: "field names",
        request: () => ({ path: `/crm/objects/${objectTypeId}/fields`, method: "POST", json: { name: "Tier", type: "text" } }),
        at: "name",
      },
      {
        name: "field slugs",
        request: () => ({
          path: `/crm/objects/${objectTypeId}/fields`,
          method: "POST",
          json: { name: "Tier", type: "text", slug: "tier" },
        }),
        at: "slug",
      },
      {
        name: "view names",
        request: () => ({ path: `/crm/objects/${objectTypeId}/views`, method: "POST", json: { name: "View" } }),
        at: "name",
      },
      {
        name: "task titles",
        request: () => ({ path: `/records/${recordId}/tasks`, method: "POST", json: { title: "Do" } }),
        at: "title",
      },
      {
        name: "note titles",
        request: () => ({ path: `/records/${recordId}/notes`, method: "POST", json: { title: "Say" } }),
        at: "title",
      },
    ];

  it.each(labelled)("refuses NUL and the other control characters inside $name", async ({ request, at }) => {
    for (const control of controls) {
      const { path, method, json } = request();
      const response = await call(path, { method, key, json: { ...json, [at]: `${json[at]}${control}x` } });
      expect(response.status, JSON.stringify(control)).toBe(400);
      const { error } = (await response.json()) as ErrorBody;
      expect(error.details?.map((detail) => detail.path)).toContain(`body.${at}`);
    }
  });

  it("keeps the joiners that Persian words and emoji sequences are spelled with in names", async () => {
    const title = "می\u200cخواهم 👩\u200d💻";
    const { note } = await expectStatus<{ note: { title: string } }>(201, `/records/${recordId}/notes`, {
      method: "POST",
      key,
      json: { title },
    });
    expect(note.title).toBe(title);
  });

  it("keeps tabs and line breaks in note and task bodies", async () => {
    const text = "First line\n\tindented\r\nlast";
    const { note } = await expectStatus<{ note: { id: string; contentPlain: string } }>(201, `/records/${recordId}/notes`, {
      method: "POST",
      key,
      json: { title: "Minutes", contentPlain: text },
    });
    expect(note.contentPlain).toBe(text);
    const { task } = await expectStatus<{ task: { descriptionPlain: string } }>(201, `/records/${recordId}/tasks`, {
      method: "POST",
      key,
      json: { title: "Follow up", descriptionPlain: text },
    });
    expect(task.descriptionPlain).toBe(text);
  });
});
