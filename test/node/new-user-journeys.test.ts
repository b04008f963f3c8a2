import { createServer, type Server } from "node:http";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack } from "../../scripts/lib/stack.mjs";
import { typeCheck, writeTypedClient } from "./typed-client";

/**
 * The journeys of issues 28 and 29 as a new user takes them, with nothing but the OpenAPI document:
 * types generated with openapi-typescript, calls written with openapi-fetch and type-checked with
 * no casts, run against the local stack with its demo data. Each function of the module is what a
 * user's script would be (the CSV import is the 20-line script the issue names).
 */

const outDir = ".wrangler/new-user-journeys";

const clientModule = `import createClient from "openapi-fetch";
import type { paths } from "./api";

/** As the reference advises: after a 429, wait its Retry-After, a few times at most, never in parallel. */
async function politeFetch(request: Request): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    const response = await fetch(request.clone());
    if (response.status !== 429 || attempt === 5) return response;
    await new Promise((resolve) => setTimeout(resolve, Number(response.headers.get("retry-after") ?? "1") * 1000));
  }
}

export const clientFor = (baseUrl: string, key: string) =>
  createClient<paths>({ baseUrl, headers: { authorization: \`Bearer \${key}\` }, fetch: politeFetch });
type Client = ReturnType<typeof clientFor>;

export async function objectTypeId(client: Client, workspaceId: string, slug: string): Promise<string> {
  const { data } = await client.GET("/crm/objects", { params: { query: { workspaceId } } });
  const objectType = data?.objects.find((candidate) => candidate.slug === slug);
  if (!objectType) throw new Error(\`no \${slug} in \${workspaceId}\`);
  return objectType.id;
}

/** Issue 29: a CSV of companies (name,domain,industry,employees) imported 100 rows a request. */
export async function importCompanies(client: Client, workspaceId: string, csv: string) {
  const companies = await objectTypeId(client, workspaceId, "companies");
  const rows = csv.trim().split("\\n").slice(1).map((line) => {
    const [name = "", domain = "", industry = "", employees = "0"] = line.split(",");
    return { fields: { name, domain, industry, employees: Number(employees) } };
  });
  const outcome = { created: 0, failed: [] as string[] };
  for (let first = 0; first < rows.length; first += 100) {
    const { data, error } = await client.POST("/records/batch", {
      body: { objectTypeId: companies, operation: "create", records: rows.slice(first, first + 100) },
    });
    if (!data) throw new Error(error?.error.message ?? "batch refused");
    for (const result of data.results) {
      if (result.status === 201) outcome.created++;
      else outcome.failed.push(\`row \${first + result.index + 2}: \${result.error?.message}\`);
    }
  }
  return outcome;
}

/** Issue 29: a person found by a fragment of her e-mail, by search and by a filter. */
export async function findByEmailFragment(client: Client, workspaceId: string, fragment: string) {
  const people = await objectTypeId(client, workspaceId, "people");
  const searched = await client.GET("/records/search", { params: { query: { workspaceId, q: fragment } } });
  const fields = await client.GET("/crm/objects/{objectTypeId}/fields", { params: { path: { objectTypeId: people } } });
  const email = fields.data?.data.find((field) => field.slug === "email");
  if (!email) throw new Error("no email field");
  const filtered = await client.POST("/records/query", {
    body: { objectTypeId: people, filter: { op: "and", conditions: [{ fieldDefinitionId: email.id, operator: "contains", value: fragment }] } },
  });
  return {
    searched: searched.data?.data.map((match) => ({ id: match.record.id, matchedFields: match.matchedFields })) ?? [],
    filtered: filtered.data?.data.map((record) => record.id) ?? [],
  };
}

export async function createPerson(client: Client, workspaceId: string, name: string, email: string) {
  const people = await objectTypeId(client, workspaceId, "people");
  const { data } = await client.POST("/records", { body: { objectTypeId: people, fields: { name, email } } });
  if (!data) throw new Error("person refused");
  return data.record.id;
}

/** Issue 28: the member of a workspace whose name is \`name\`, from the members directory. */
export async function memberNamed(client: Client, workspaceId: string, name: string) {
  const { data } = await client.GET("/workspaces/{workspaceId}/members", { params: { path: { workspaceId }, query: { limit: 100 } } });
  const member = data?.data.find((candidate) => candidate.name === name);
  if (!member) throw new Error(\`no member named \${name}\`);
  return member.id;
}

export async function firstConversation(client: Client, workspaceId: string) {
  const { data } = await client.GET("/inbox/conversations", { params: { query: { workspaceId, limit: 1 } } });
  const conversation = data?.data[0];
  if (!conversation) throw new Error("no conversation");
  return conversation.id;
}

/** Issue 28: assigns a conversation; answers the assignees as the conversation shows them. */
export async function assign(client: Client, conversationId: string, userId: string) {
  const { data } = await client.PATCH("/inbox/conversations/{conversationId}", {
    params: { path: { conversationId } },
    body: { assigneeUserIds: [userId] },
  });
  return data?.conversation.assignees.map((assignee) => ({ id: assignee.id, name: assignee.name })) ?? [];
}

/** Issue 29: a tag made (or found) in the workspace and put on the conversation. */
export async function tag(client: Client, workspaceId: string, conversationId: string, name: string) {
  const created = await client.POST("/inbox/tags", { body: { workspaceId, name, color: "#e11d48" } });
  if (!created.data) throw new Error("tag refused");
  const { data } = await client.PATCH("/inbox/conversations/{conversationId}", {
    params: { path: { conversationId } },
    body: { tagIds: [created.data.tag.id] },
  });
  const tagged = await client.GET("/inbox/conversations", { params: { query: { workspaceId, tagIds: created.data.tag.id } } });
  return { tags: data?.conversation.tags.map((each) => each.name) ?? [], listed: tagged.data?.data.map((each) => each.id) ?? [] };
}

export async function comment(client: Client, conversationId: string, text: string, mentionUserIds: string[] = []) {
  const { data, error } = await client.POST("/inbox/conversations/{conversationId}/comments", {
    params: { path: { conversationId } },
    body: { text, mentionUserIds },
  });
  if (!data) throw new Error(error?.error.message ?? "comment refused");
  return data.comment.id;
}

export async function commentTexts(client: Client, conversationId: string) {
  const { data } = await client.GET("/inbox/conversations/{conversationId}/comments", { params: { path: { conversationId } } });
  return data?.data.map((each) => ({ text: each.text, authorId: each.authorId })) ?? [];
}

/** Issue 28: every event since \`sinceMs\`, a page at a time, then what came after the last one seen. */
export async function catchUp(client: Client, workspaceId: string, sinceMs: number, afterEventId?: string) {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const query = cursor !== undefined ? { workspaceId, cursor } : afterEventId !== undefined ? { workspaceId, afterEventId } : { workspaceId, sinceMs };
    const { data, error } = await client.GET("/events", { params: { query: { ...query, limit: 100 } } });
    if (!data) throw new Error(error?.error.message ?? "events refused");
    ids.push(...data.data.map((event) => event.id));
    cursor = data.pagination.cursor ?? undefined;
  } while (cursor !== undefined);
  return ids;
}

export async function subscribe(client: Client, workspaceId: string, url: string) {
  const { data } = await client.POST("/webhooks", { body: { workspaceId, url, eventTypes: ["record.created"] } });
  if (!data) throw new Error("subscription refused");
  return { webhookId: data.webhook.id, secret: data.secret };
}

/** Issue 28: a test delivery; answers its id once its first attempt is recorded. */
export async function sendTest(client: Client, webhookId: string) {
  const { data, response } = await client.POST("/webhooks/{webhookId}/test", { params: { path: { webhookId } } });
  return { status: response.status, deliveryId: data?.delivery.deliveryId };
}

export async function deliveryStatus(client: Client, webhookId: string, deliveryId: string) {
  const { data } = await client.GET("/webhooks/{webhookId}/deliveries", { params: { path: { webhookId } } });
  return data?.data.find((delivery) => delivery.deliveryId === deliveryId)?.status;
}

export async function redeliver(client: Client, webhookId: string, deliveryId: string) {
  const { response } = await client.POST("/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver", {
    params: { path: { webhookId, deliveryId } },
  });
  return response.status;
}
`;

type Client = unknown;
/** The client module's functions, as the test calls them. */
interface Journeys {
  clientFor(baseUrl: string, key: string): Client;
  importCompanies(client: Client, workspaceId: string, csv: string): Promise<{ created: number; failed: string[] }>;
  createPerson(client: Client, workspaceId: string, name: string, email: string): Promise<string>;
  findByEmailFragment(
    client: Client,
    workspaceId: string,
    fragment: string,
  ): Promise<{ searched: { id: string; matchedFields: string[] }[]; filtered: string[] }>;
  memberNamed(client: Client, workspaceId: string, name: string): Promise<string>;
  firstConversation(client: Client, workspaceId: string): Promise<string>;
  assign(client: Client, conversationId: string, userId: string): Promise<{ id: string; name: string }[]>;
  tag(client: Client, workspaceId: string, conversationId: string, name: string): Promise<{ tags: string[]; listed: string[] }>;
  comment(client: Client, conversationId: string, text: string, mentionUserIds?: string[]): Promise<string>;
  commentTexts(client: Client, conversationId: string): Promise<{ text: string; authorId: string }[]>;
  catchUp(client: Client, workspaceId: string, sinceMs: number, afterEventId?: string): Promise<string[]>;
  subscribe(client: Client, workspaceId: string, url: string): Promise<{ webhookId: string; secret: string }>;
  sendTest(client: Client, webhookId: string): Promise<{ status: number; deliveryId?: string }>;
  deliveryStatus(client: Client, webhookId: string, deliveryId: string): Promise<string | undefined>;
  redeliver(client: Client, webhookId: string, deliveryId: string): Promise<number>;
}

/** Polls `probe` until it answers what `done` accepts; throws with the last answer on timeout. */
async function eventually<T>(probe: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = await probe();
  while (!done(last)) {
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
    last = await probe();
  }
  return last;
}

/** The user's own receiver: broken (500) until fixed, then verifying each delivery with standardwebhooks. */
function userReceiver() {
  const state = { fixed: false, secret: "", arrivals: [] as string[], verified: [] as { id: string; type: string }[] };
  const server: Server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => {
      body += chunk;
    });
    request.on("end", () => {
      state.arrivals.push(String(request.headers["webhook-id"]));
      if (!state.fixed) {
        response.writeHead(500).end();
        return;
      }
      const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
      const event = new Webhook(state.secret).verify(body, headers) as { type: string };
      state.verified.push({ id: headers["webhook-id"] as string, type: event.type });
      response.writeHead(204).end();
    });
  });
  return { state, server };
}

let stack: Awaited<ReturnType<typeof startStack>>;
let journeys: Journeys;
let alice: Client;
let bob: Client;
let acme: Awaited<ReturnType<typeof startStack>>["demo"]["organizations"][number];

beforeAll(async () => {
  const clientPath = await writeTypedClient(outDir, clientModule);
  stack = await startStack({ regionVars: { WEBHOOKS_ALLOW_LOOPBACK: "true", WEBHOOK_RETRY_SCHEDULE: "1,1,1" } });
  acme = stack.demo.organizations[0] as typeof acme;
  journeys = (await import(/* @vite-ignore */ clientPath)) as Journeys;
  const baseUrl = new URL("/api/v1", stack.url).href;
  alice = journeys.clientFor(baseUrl, acme.users[0]?.apiKey as string);
  bob = journeys.clientFor(baseUrl, acme.users[1]?.apiKey as string);
});
afterAll(async () => {
  await stack?.mf.dispose();
});

describe("a new user's journeys, through a client generated from the OpenAPI document", () => {
  it("type-checks with no casts", () => {
    expect(typeCheck(outDir)).toBe("");
  });

  it("imports a CSV of 5 000 companies in batches of 100, then finds a person by a fragment of her e-mail", async () => {
    const sales = acme.workspaces[0]?.id as string;
    const csv = [
      "name,domain,industry,employees",
      ...Array.from({ length: 5000 }, (_, n) => `Company ${n},company-${n}.example,Software,${n % 500}`),
    ].join("\n");
    expect(await journeys.importCompanies(alice, sales, csv)).toEqual({ created: 5000, failed: [] });
    // The same file again: each row refused alone as a duplicate domain, named by its line.
    const again = await journeys.importCompanies(alice, sales, csv.split("\n").slice(0, 3).join("\n"));
    expect(again.created).toBe(0);
    expect(again.failed).toHaveLength(2);
    expect(again.failed[0]).toMatch(/^row 2: /);

    const hannah = await journeys.createPerson(alice, sales, "Hannah Fragmentova", "hannah.fragmentova@northwind.example");
    const found = await journeys.findByEmailFragment(alice, sales, "fragmentova@northwind");
    expect(found.filtered).toEqual([hannah]);
    const searched = await journeys.findByEmailFragment(alice, sales, "northwind.ex");
    expect(searched.searched).toEqual([{ id: hannah, matchedFields: ["email"] }]);
  });

  it("assigns a conversation to a member found by name, tags it, and two members comment on it", async () => {
    const sales = acme.workspaces[0]?.id as string;
    // A conversation bob sees: its customer is a person record of the workspace (bob's inbox access is `record_read`).
    const conversationId = await journeys.firstConversation(bob, sales);
    const bobId = await journeys.memberNamed(alice, sales, "Bob Baker");
    expect(await journeys.assign(alice, conversationId, bobId)).toEqual([{ id: bobId, name: "Bob Baker" }]);
    expect(await journeys.tag(alice, sales, conversationId, "Refund")).toEqual({ tags: ["Refund"], listed: [conversationId] });
    await journeys.comment(alice, conversationId, "Bob, can you take this refund?", [bobId]);
    await journeys.comment(bob, conversationId, "On it.");
    const aliceId = acme.users[0]?.id as string;
    expect(await journeys.commentTexts(bob, conversationId)).toEqual([
      { text: "Bob, can you take this refund?", authorId: aliceId },
      { text: "On it.", authorId: bobId },
    ]);
  });

  it("catches up on a day of events from a cursor, then from the last id it saw", async () => {
    const support = acme.workspaces[1]?.id as string;
    const dayAgo = Date.now() - 24 * 60 * 60 * 1000;
    // The day's events of Support: a few people made today.
    for (const name of ["Early Bird", "Second Comer", "Third Party"])
      await journeys.createPerson(alice, support, name, `${name.toLowerCase().replace(" ", ".")}@northwind.example`);
    const seen = await journeys.catchUp(alice, support, dayAgo);
    expect(seen.length).toBeGreaterThanOrEqual(3);
    expect(new Set(seen).size).toBe(seen.length);
    const last = seen.at(-1) as string;
    const later = await journeys.createPerson(alice, support, "Late Arrival", "late.arrival@northwind.example");
    const after = await journeys.catchUp(alice, support, dayAgo, last);
    expect(after).toHaveLength(1);
    const everything = await journeys.catchUp(alice, support, dayAgo);
    expect(everything).toEqual([...seen, ...after]);
    expect(later).toMatch(/^rec_/);
  });

  it("sends a test delivery to a broken receiver, fixes the receiver, and redelivers under the same webhook-id", async () => {
    const sales = acme.workspaces[0]?.id as string;
    const receiver = userReceiver();
    await new Promise<void>((resolve) => receiver.server.listen(0, "127.0.0.1", resolve));
    const address = receiver.server.address();
    const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/hooks`;
    try {
      const { webhookId, secret } = await journeys.subscribe(alice, sales, url);
      receiver.state.secret = secret;
      const test = await journeys.sendTest(alice, webhookId);
      expect(test.status).toBe(202);
      const deliveryId = test.deliveryId as string;
      await eventually(
        () => journeys.deliveryStatus(alice, webhookId, deliveryId),
        (status) => status === "failed",
        "the test delivery to the broken receiver",
        30_000,
      );
      receiver.state.fixed = true;
      expect(await journeys.redeliver(alice, webhookId, deliveryId)).toBe(202);
      await eventually(
        () => journeys.deliveryStatus(alice, webhookId, deliveryId),
        (status) => status === "delivered",
        "the redelivery to the fixed receiver",
      );
      // Every attempt, the failed ones and the redelivery, came under the one webhook-id.
      const [webhookIdHeader] = receiver.state.arrivals;
      expect(receiver.state.arrivals.length).toBeGreaterThan(1);
      expect(new Set(receiver.state.arrivals)).toEqual(new Set([webhookIdHeader]));
      expect(receiver.state.verified).toEqual([{ id: webhookIdHeader, type: "webhook.test" }]);
    } finally {
      receiver.server.close();
    }
  });
});
