/** Schemas of the OpenAPI document (3.1, so JSON Schema 2020-12) as standalone JSON Schemas. */

type Json = Record<string, unknown>;

const componentRef = "#/components/schemas/";

/** Names of the components a schema refers to, directly or through other components. */
function referencedComponents(schema: unknown, components: Record<string, Json>, found = new Set<string>()): Set<string> {
  for (const [, name] of JSON.stringify(schema).matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
    if (name === undefined || found.has(name)) continue;
    found.add(name);
    referencedComponents(components[name], components, found);
  }
  return found;
}

/**
 * A schema of the document as a JSON Schema that stands on its own: the components it refers to
 * copied into `$defs` (only those), refs pointing there. What a consumer without the whole
 * document (an automation platform reading the integrations catalogue) can validate with.
 */
export function standaloneJsonSchema(schema: Json, components: Record<string, Json>): Json {
  const defs = Object.fromEntries([...referencedComponents(schema, components)].sort().map((name) => [name, components[name]]));
  const relocated = JSON.parse(JSON.stringify({ ...schema, $defs: defs }).replaceAll(`"${componentRef}`, '"#/$defs/')) as Json;
  if (Object.keys(defs).length === 0) delete relocated.$defs;
  return { $schema: "https://json-schema.org/draft/2020-12/schema", ...relocated };
}
