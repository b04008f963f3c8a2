import { dereference, validate } from "@cfworker/json-schema";
import { openApiDocument } from "@crm/contracts";
import { describe, expect, it } from "vitest";

/**
 * Issue 26 point 13: every schema of the published document shows a realistic example. A property
 * (a leaf: a value with no properties, items or branches of its own) has an example of its own or
 * one on its parent schema, and every example is a value its own schema accepts, so a docs page or a
 * generated client never shows `"string"` or an example the API refuses. (Parameters keep the
 * examples their definitions give: the docs page's try-it client sends them.)
 */

type Schema = { [keyword: string]: unknown };
const document = openApiDocument("http://127.0.0.1:8787") as unknown as {
  paths: Record<string, Record<string, Schema>>;
  components: { schemas: Record<string, Schema> };
};

const isObject = (value: unknown): value is Schema => value !== null && typeof value === "object" && !Array.isArray(value);
const hasExample = (schema: Schema) => schema.example !== undefined || schema.examples !== undefined;

/** Each schema of the document once, with where it is: the components and what operations declare inline. */
function schemasOfDocument(): [string, Schema][] {
  const found: [string, Schema][] = Object.entries(document.components.schemas);
  for (const [path, entry] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(entry)) {
      const where = `${method.toUpperCase()} ${path}`;
      const body = (operation.requestBody as { content?: Record<string, { schema?: Schema }> } | undefined)?.content;
      const json = body?.["application/json"]?.schema;
      if (json) found.push([`${where} body`, json]);
      for (const [status, response] of Object.entries(operation.responses as Record<string, Schema>)) {
        const content = response.content as Record<string, { schema?: Schema }> | undefined;
        // An attachment's bytes have no example to show; every JSON answer does.
        const answer = content?.["application/json"]?.schema;
        if (answer) found.push([`${where} ${status}`, answer]);
      }
    }
  }
  return found;
}

/** A branch of `allOf` that only describes (`{ description }` beside a `$ref`): it holds no value of its own. */
const onlyAnnotates = (schema: Schema) =>
  Object.keys(schema).every((keyword) => keyword === "description" || keyword === "title");

/** The leaves under `schema` without an example of their own or on their parent schema. */
function leavesWithoutExample(schema: unknown, where: string, parentHas: boolean, found: string[]): string[] {
  if (!isObject(schema) || schema.$ref !== undefined) return found;
  const own = hasExample(schema);
  const covered = own || parentHas;
  for (const key of ["anyOf", "oneOf", "allOf"]) {
    for (const [i, branch] of ((schema[key] as unknown[] | undefined) ?? []).entries()) {
      if (key === "allOf" && isObject(branch) && onlyAnnotates(branch)) continue;
      leavesWithoutExample(branch, `${where}|${i}`, covered, found);
    }
  }
  for (const [name, property] of Object.entries((schema.properties as Record<string, unknown> | undefined) ?? {})) {
    leavesWithoutExample(property, `${where}.${name}`, own, found);
  }
  leavesWithoutExample(schema.items, `${where}[]`, covered, found);
  leavesWithoutExample(schema.additionalProperties, `${where}{}`, covered, found);
  const leaf = !schema.properties && !schema.items && !schema.anyOf && !schema.oneOf && !schema.allOf;
  // `{ type: "null" }` (the null branch of a nullable reference) has one value: nothing to show.
  if (leaf && !covered && schema.type !== "null") found.push(where);
  return found;
}

/** Every example in `schema` with the schema that holds it. */
function examplesIn(schema: unknown, where: string, found: [string, Schema][]): [string, Schema][] {
  if (!isObject(schema)) return found;
  if (schema.example !== undefined) found.push([where, schema]);
  for (const key of ["anyOf", "oneOf", "allOf"]) {
    for (const [i, branch] of ((schema[key] as unknown[] | undefined) ?? []).entries())
      examplesIn(branch, `${where}|${i}`, found);
  }
  for (const [name, property] of Object.entries((schema.properties as Record<string, unknown> | undefined) ?? {})) {
    examplesIn(property, `${where}.${name}`, found);
  }
  examplesIn(schema.items, `${where}[]`, found);
  examplesIn(schema.additionalProperties, `${where}{}`, found);
  return found;
}

/**
 * A schema of the document as a JSON Schema whose references point into one dereferenced copy of
 * the components (read once: each example is then checked without reading them again). Examples are
 * left out of it: a validator would read an example's `id` as a schema's.
 */
const base = "https://crm.example/openapi";
const asJsonSchema = (schema: unknown) =>
  JSON.parse(
    JSON.stringify(schema, (keyword, value) => (keyword === "example" ? undefined : value)).replaceAll(
      '"#/components/schemas/',
      `"${base}#/$defs/`,
    ),
  );
const components = dereference({ $id: base, $defs: asJsonSchema(document.components.schemas) });

describe("examples of the OpenAPI document", () => {
  it("every property of every schema has an example of its own or on its parent schema", () => {
    const missing = schemasOfDocument().flatMap(([where, schema]) => leavesWithoutExample(schema, where, false, []));
    expect(missing).toEqual([]);
  });

  it("every example is a value its own schema accepts, and none is a placeholder", () => {
    const refused: string[] = [];
    const checked = new Set<string>();
    for (const [where, schema] of schemasOfDocument().flatMap(([at, root]) => examplesIn(root, at, []))) {
      // A component's example shows again wherever an operation inlines it: one check each.
      const key = JSON.stringify(schema);
      if (checked.has(key)) continue;
      checked.add(key);
      const result = validate(schema.example, asJsonSchema(schema), "2020-12", components, false);
      if (!result.valid)
        refused.push(`${where}: ${JSON.stringify(schema.example)} (${result.errors.map((error) => error.error).join("; ")})`);
      if (schema.example === "string") refused.push(`${where}: the placeholder "string"`);
    }
    expect(refused).toEqual([]);
  });
});
