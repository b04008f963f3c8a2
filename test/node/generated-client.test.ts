import { catalogue } from "@crm/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack } from "../../scripts/lib/stack.mjs";
import { publicDocument as document, typeCheck, writeTypedClient } from "./typed-client";

/**
 * The API as a new user meets it: types generated from the OpenAPI document with
 * openapi-typescript, and requests written against them with openapi-fetch, type-checked by the
 * project's `tsc` with no casts. Each write operation is called with the request example of its
 * catalogue entry, which is therefore the minimal valid body (required properties only), so a
 * property the server accepts absent but the generated types require fails here. The same client
 * module then creates the reference's kanban and table views over HTTP against the stack.
 */

const outDir = ".wrangler/generated-client";

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: { example?: unknown };
}
interface OperationObject {
  parameters?: Parameter[];
  requestBody?: {
    content: Record<
      string,
      { schema: { $ref?: string; example?: unknown; required?: string[]; anyOf?: { required?: string[] }[] } }
    >;
  };
}

const operationObject = (path: string, method: string) =>
  (document.paths?.[path] as Record<string, OperationObject> | undefined)?.[method] as OperationObject;

/** The request body schema of an operation (JSON, or the first media type a form route declares), `$ref` resolved. */
function bodySchema(path: string, method: string) {
  const content = operationObject(path, method).requestBody?.content;
  const schema = content?.["application/json"]?.schema ?? Object.values(content ?? {})[0]?.schema;
  if (!schema?.$ref) return schema;
  return document.components?.schemas?.[schema.$ref.split("/").pop() as string] as {
    example?: unknown;
    required?: string[];
    anyOf?: { required?: string[] }[];
  };
}

/** A call of the operation with its documented minimal body, as a line of TypeScript. */
function minimalCall(path: string, method: string): string {
  const parameters = operationObject(path, method).parameters ?? [];
  const example = (parameter: Parameter) => JSON.stringify(parameter.schema?.example ?? "x");
  const inPath = parameters.filter((parameter) => parameter.in === "path");
  const inQuery = parameters.filter((parameter) => parameter.in === "query" && parameter.required);
  const params = [
    inPath.length > 0 ? `path: { ${inPath.map((parameter) => `${parameter.name}: ${example(parameter)}`).join(", ")} }` : "",
    inQuery.length > 0 ? `query: { ${inQuery.map((parameter) => `${parameter.name}: ${example(parameter)}`).join(", ")} }` : "",
  ].filter(Boolean);
  const body = bodySchema(path, method)?.example;
  const init = [
    params.length > 0 ? `params: { ${params.join(", ")} }` : "",
    body === undefined ? "" : `body: ${JSON.stringify(body)}`,
  ]
    .filter(Boolean)
    .join(", ");
  return `await client.${method.toUpperCase()}(${JSON.stringify(path)}${init ? `, { ${init} }` : ""});`;
}

const writes = catalogue.filter((operation) => operation.method !== "get");

/**
 * The client module a new user would write: every write with its minimal body, and the
 * reference's view bodies. Its only import of the generated types is `import type`, so it runs
 * without them; `tsc` checks it against them.
 */
const clientModule = `import createClient from "openapi-fetch";
import type { paths } from "./api";

export const clientFor = (baseUrl: string, key: string) =>
  createClient<paths>({ baseUrl, headers: { authorization: \`Bearer \${key}\` } });
type Client = ReturnType<typeof clientFor>;

export async function minimalWrites(client: Client) {
${writes.map((operation) => `  ${minimalCall(operation.path, operation.method)}`).join("\n")}
}

/** The deals type of a workspace, its stage field and the stage's options. */
export async function dealStages(client: Client, workspaceId: string) {
  const objects = await client.GET("/crm/objects", { params: { query: { workspaceId } } });
  const deals = objects.data?.objects.find((object) => object.slug === "deals");
  if (!deals) throw new Error("no deals type");
  const fields = await client.GET("/crm/objects/{objectTypeId}/fields", { params: { path: { objectTypeId: deals.id } } });
  const stage = fields.data?.data.find((field) => field.slug === "stage");
  if (!stage?.options) throw new Error("no stage field");
  return { objectTypeId: deals.id, stageId: stage.id, optionIds: stage.options.map((option) => option.id) };
}

/** The reference's kanban view: no \`type\`, the kanban field and win/loss options. */
export async function createKanbanView(client: Client, objectTypeId: string, kanbanFieldDefinitionId: string, win: string, loss: string) {
  const { data, response } = await client.POST("/crm/objects/{objectTypeId}/views", {
    params: { path: { objectTypeId } },
    body: { name: "Pipeline", kanbanFieldDefinitionId, kanbanWinOptionIds: [win], kanbanLossOptionIds: [loss] },
  });
  const type: "table" | "kanban" | undefined = data?.view.type;
  const columns: { fieldDefinitionId: string; width?: number; hidden?: boolean }[] | undefined = data?.view.config.columns;
  return { status: response.status, type, columns };
}

/** The reference's table view: a name and nothing else. */
export async function createTableView(client: Client, objectTypeId: string) {
  const { data, response } = await client.POST("/crm/objects/{objectTypeId}/views", {
    params: { path: { objectTypeId } },
    body: { name: "All deals" },
  });
  return { status: response.status, type: data?.view.type, viewId: data?.view.id };
}

/** Parts of a view's configuration the server defaults (columns, filter, groupBy) left out. */
export async function sortView(client: Client, viewId: string, fieldDefinitionId: string) {
  const { data, response } = await client.PATCH("/crm/views/{viewId}", {
    params: { path: { viewId } },
    body: { config: { sorts: [{ fieldDefinitionId, direction: "desc" }] } },
  });
  return { status: response.status, config: data?.view.config };
}

/** A client of the console's own session, as the console's pages call \`/api-keys\`. */
export const consoleClientFor = (baseUrl: string, cookie: string, csrf: string) =>
  createClient<paths>({ baseUrl, headers: { cookie, "x-csrf-token": csrf, "sec-fetch-site": "same-origin" } });
type ConsoleClient = ReturnType<typeof consoleClientFor>;

interface Page<Item> {
  data: Item[];
  pagination: { cursor: string | null; hasMore: boolean };
}

/** The one loop every list takes: a page, then the next with its cursor, until there is none. */
export async function everyItem<Item>(
  page: (cursor: string | undefined) => Promise<{ data?: Page<Item>; response: Response }>,
): Promise<Item[]> {
  const items: Item[] = [];
  let cursor: string | undefined;
  do {
    const { data, response } = await page(cursor);
    if (!data) throw new Error(\`page refused: \${response.status}\`);
    items.push(...data.data);
    cursor = data.pagination.cursor ?? undefined;
  } while (cursor !== undefined);
  return items;
}

const pageQuery = (limit: number, cursor: string | undefined) => ({ limit, ...(cursor === undefined ? {} : { cursor }) });

export const workspaceNames = async (client: Client) =>
  (await everyItem((cursor) => client.GET("/workspaces", { params: { query: pageQuery(1, cursor) } }))).map(
    (workspace) => workspace.name,
  );

export async function connectionNames(client: Client, workspaceId: string, names: string[]) {
  for (const name of names)
    await client.POST("/integrations/connections", { body: { workspaceId, provider: "meeting_notes", name } });
  const listed = await everyItem((cursor) =>
    client.GET("/integrations/connections", { params: { query: { workspaceId, ...pageQuery(2, cursor) } } }),
  );
  return listed.map((connection) => connection.name);
}

export async function apiKeyNames(client: ConsoleClient, names: string[]) {
  for (const name of names) await client.POST("/api-keys", { body: { name, scopes: ["tasks:read"] } });
  const listed = await everyItem((cursor) => client.GET("/api-keys", { params: { query: pageQuery(2, cursor) } }));
  return listed.map((key) => key.name);
}

/** A record query without \`limit\` (default 50). */
export async function queryWithoutLimit(client: Client, objectTypeId: string) {
  const { data, response } = await client.POST("/records/query", { body: { objectTypeId } });
  const cursor: string | null | undefined = data?.pagination.cursor;
  return { status: response.status, cursor };
}
`;

/** The client module's functions, as the HTTP test calls them. */
interface ClientModule {
  clientFor(baseUrl: string, key: string): unknown;
  dealStages(client: unknown, workspaceId: string): Promise<{ objectTypeId: string; stageId: string; optionIds: string[] }>;
  createKanbanView(
    client: unknown,
    objectTypeId: string,
    fieldId: string,
    win: string,
    loss: string,
  ): Promise<{ status: number; type?: string; columns?: unknown[] }>;
  createTableView(client: unknown, objectTypeId: string): Promise<{ status: number; type?: string; viewId?: string }>;
  sortView(client: unknown, viewId: string, fieldId: string): Promise<{ status: number; config?: unknown }>;
  queryWithoutLimit(client: unknown, objectTypeId: string): Promise<{ status: number; cursor?: string | null }>;
  consoleClientFor(baseUrl: string, cookie: string, csrf: string): unknown;
  workspaceNames(client: unknown): Promise<string[]>;
  connectionNames(client: unknown, workspaceId: string, names: string[]): Promise<string[]>;
  apiKeyNames(client: unknown, names: string[]): Promise<string[]>;
}

/** Signs a demo user in to the console as a browser would: the session cookie and the page's CSRF token. */
async function consoleSession(origin: string, email: string, password: string) {
  const cookieOf = (response: Response, name: string) =>
    response.headers
      .getSetCookie()
      .find((cookie) => cookie.startsWith(`${name}=`))
      ?.split(";")[0] as string;
  const csrfOf = async (response: Response) => /name="csrf" value="([^"]+)"/.exec(await response.text())?.[1] as string;
  const form = await fetch(new URL("/console/sign-in", origin));
  const signInCookie = cookieOf(form, "__Host-sign-in");
  const signedIn = await fetch(new URL("/console/sign-in", origin), {
    method: "POST",
    redirect: "manual",
    headers: { cookie: signInCookie, origin, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ csrf: await csrfOf(form), email, password }),
  });
  const cookie = cookieOf(signedIn, "__Host-session");
  const page = await fetch(new URL("/console/api-keys", origin), { headers: { cookie } });
  return { cookie, csrf: await csrfOf(page) };
}

let clientPath: string;
beforeAll(async () => {
  clientPath = await writeTypedClient(outDir, clientModule);
});

describe("a client generated from the OpenAPI document", () => {
  it("documents each write's request example as its minimal body: the required properties, or one when none is", () => {
    // Signed inbound webhooks take whole provider events (a oneOf by `type`), sent by providers, not clients.
    for (const operation of writes.filter((write) => write.auth !== "signature")) {
      const schema = bodySchema(operation.path, operation.method);
      if (!schema) continue;
      const keys = Object.keys((schema.example ?? {}) as object).sort();
      // One branch of an `anyOf` of `required` (compose: `text` or `html`) is part of the minimal body.
      const required = [...(schema.required ?? []), ...(schema.anyOf?.[0]?.required ?? [])].sort();
      if (required.length > 0) expect(keys, operation.operationId).toEqual(required);
      else expect(keys.length, operation.operationId).toBeLessThanOrEqual(1);
    }
  });

  it("type-checks a minimal request of every write operation and the reference's view bodies, with no casts", () => {
    expect(typeCheck(outDir)).toBe("");
  });

  describe("over HTTP, against the stack", () => {
    let stack: Awaited<ReturnType<typeof startStack>>;
    let client: unknown;
    let calls: ClientModule;
    let workspaceId: string;
    let acme: Awaited<ReturnType<typeof startStack>>["demo"]["organizations"][number];
    beforeAll(async () => {
      stack = await startStack();
      acme = stack.demo.organizations[0] as typeof acme;
      workspaceId = acme.workspaces[0]?.id as string;
      calls = (await import(/* @vite-ignore */ clientPath)) as ClientModule;
      client = calls.clientFor(new URL("/api/v1", stack.url).href, acme.users[0]?.apiKey as string);
    });
    afterAll(async () => {
      await stack?.mf.dispose();
    });

    it("creates a kanban view without `type` and a table view from just a name, and sorts a view by config.sorts alone", async () => {
      const { objectTypeId, stageId, optionIds } = await calls.dealStages(client, workspaceId);
      const kanban = await calls.createKanbanView(client, objectTypeId, stageId, optionIds[0] as string, optionIds[1] as string);
      expect(kanban).toMatchObject({ status: 201, type: "kanban", columns: [] });
      const table = await calls.createTableView(client, objectTypeId);
      expect(table).toMatchObject({ status: 201, type: "table" });
      const sorted = await calls.sortView(client, table.viewId as string, stageId);
      expect(sorted).toEqual({
        status: 200,
        config: { columns: [], filter: null, sorts: [{ fieldDefinitionId: stageId, direction: "desc" }], groupBy: null },
      });
      expect(await calls.queryWithoutLimit(client, objectTypeId)).toMatchObject({ status: 200 });
    });

    it("pages through /api-keys and /integrations/connections with the same loop as every other list", async () => {
      expect(await calls.workspaceNames(client)).toEqual(
        expect.arrayContaining(acme.workspaces.map((workspace) => workspace.name)),
      );
      const connections = await calls.connectionNames(client, workspaceId, ["Notes A", "Notes B", "Notes C"]);
      expect(connections).toEqual(expect.arrayContaining(["Notes A", "Notes B", "Notes C"]));
      const alice = acme.users[0] as { email: string; password: string };
      const { cookie, csrf } = await consoleSession(new URL(stack.url).origin, alice.email, alice.password);
      const consoleClient = calls.consoleClientFor(new URL("/api/v1", stack.url).href, cookie, csrf);
      const keys = await calls.apiKeyNames(consoleClient, ["Key A", "Key B", "Key C"]);
      expect(keys).toEqual(expect.arrayContaining(["Key A", "Key B", "Key C"]));
    });
  });
});
