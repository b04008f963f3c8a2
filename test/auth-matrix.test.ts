import { env } from "cloudflare:test";
import {
  catalogue,
  listConversationMessages,
  listConversations,
  listEvents,
  listMeetings,
  type Operation,
  openApiDocument,
  scopes,
  testWebhook,
} from "@crm/contracts";
import { control, newId } from "@crm/db";
import { eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { beforeAll, describe, expect, it } from "vitest";
import { apiKeyPrefix } from "../workers/gateway/src/api-keys";
import { consoleSessionHeaders } from "./console-browser";
import { bodyOf, errorOf } from "./crm";
import { createKey } from "./fixtures";
import { deliver as deliverMail, mailWorkspace, rawMessage } from "./mail";
import { rawToolCall, toolError } from "./mcp";
import { type Connection, deliver, expectReceived, inboundPath } from "./meetings";
import { baseUrl, call, cast } from "./stack";

/**
 * The shared auth matrix: every operation of the route catalogue, the routes of later issues
 * included, is checked for the same credential failures and for tenant isolation.
 */

type Cast = Awaited<ReturnType<typeof cast>>;

/** A foreign organization's workspace and the owner key that creates its resources through the API. */
interface ForeignTenant {
  key: string;
  workspaceId: string;
  mailbox: string;
}

let neighbour: Promise<ForeignTenant & { shard: number }> | undefined;
/**
 * A fresh organization in Acme's own shard (the first us shard, where fixtures place organizations),
 * with one inbound mail carrying a file, so that every kind of id exists there as in a demo workspace.
 */
function acmeShardNeighbour(): Promise<ForeignTenant & { shard: number }> {
  neighbour ??= (async () => {
    const workspace = await mailWorkspace("us");
    const raw = rawMessage({
      to: workspace.mailbox,
      subject: "Neighbour's order",
      attachment: { filename: "order.txt", contentType: "text/plain", content: "Order 7" },
    });
    const delivery = await deliverMail(raw, workspace.mailbox);
    if (delivery.rejected) throw new Error(`the neighbour's mail was refused: ${delivery.rejected}`);
    return { key: workspace.key, workspaceId: workspace.workspaceId, mailbox: workspace.mailbox, shard: workspace.shard };
  })();
  return neighbour;
}

/** An owner of Acme and their full-scope key: who asks for a foreign tenant's ids. */
interface Caller {
  id: string;
  key: string;
}

let secondOwner: Promise<Caller> | undefined;
/**
 * Another owner of Acme, the caller of the neighbour's cases: the matrix's requests then fill two
 * identities' windows (180 a minute each) rather than all of alice's.
 */
function acmeSecondOwner({ acme }: Cast): Promise<Caller> {
  secondOwner ??= (async () => {
    const id = newId("usr");
    const db = drizzle(env.CONTROL_DB);
    await db.batch([
      db.insert(control.users).values({ id, email: `${id}@acme.example`, name: "Second owner", createdAt: Date.now() }),
      db
        .insert(control.organizationMembers)
        .values({ organizationId: acme.id, userId: id, role: "owner", createdAt: Date.now() }),
    ]);
    return { id, key: (await createKey({ organizationId: acme.id, ownerId: id })).key };
  })();
  return secondOwner;
}

const alice = async ({ alice }: Cast): Promise<Caller> => ({ id: alice.id, key: alice.apiKey });

/**
 * The organizations whose ids a caller of Acme (us region, first shard) must not reach. The
 * neighbour lives in Acme's own database, so its 404 shows the organization check inside one
 * database; Initech's, on the region's other shard, shows that a request reaches its own shard
 * only; Globex's follows from data residency too.
 */
const foreignTenants: Record<
  string,
  { tenant: (cast: Cast) => ForeignTenant | Promise<ForeignTenant>; caller: (cast: Cast) => Promise<Caller> }
> = {
  "a neighbour in the caller's database": { tenant: () => acmeShardNeighbour(), caller: acmeSecondOwner },
  "Initech, in the caller's region on another shard": {
    tenant: ({ erin, initech }) => ({
      key: erin.apiKey,
      workspaceId: initech.workspaces[0]?.id as string,
      mailbox: initech.workspaces[0]?.mailbox as string,
    }),
    caller: alice,
  },
  "Globex, in another region": {
    tenant: ({ dave, globex }) => ({
      key: dave.apiKey,
      workspaceId: globex.workspaces[0]?.id as string,
      mailbox: globex.workspaces[0]?.mailbox as string,
    }),
    caller: alice,
  },
};

/**
 * How to get an id of each kind that belongs to a foreign organization. A route whose path or
 * query names an id kind missing here fails the matrix until its issue adds a factory: no route
 * can skip the cross-tenant check by accident.
 */
const foreignIdFactories: Record<string, (tenant: ForeignTenant) => Promise<string>> = {
  workspaceId: async ({ workspaceId }) => workspaceId,
  objectTypeId: async (tenant) => (await foreignDeals(tenant)).objectTypeId,
  fieldDefinitionId: async (tenant) => (await foreignDeals(tenant)).stage.id,
  fieldOptionId: async (tenant) => (await foreignDeals(tenant)).stage.options[0]?.id as string,
  viewId: async (tenant) => (await foreignDeals(tenant)).viewId,
  taskId: async (tenant) => {
    const recordId = await foreignId("recordId", tenant);
    const { task } = await created<{ task: { id: string } }>(`/records/${recordId}/tasks`, tenant, { title: "Foreign task" });
    return task.id;
  },
  noteId: async (tenant) => {
    const recordId = await foreignId("recordId", tenant);
    const { note } = await created<{ note: { id: string } }>(`/records/${recordId}/notes`, tenant, { title: "Foreign note" });
    return note.id;
  },
  webhookId: async (tenant) => {
    const { webhook } = await created<{ webhook: { id: string } }>("/webhooks", tenant, {
      workspaceId: tenant.workspaceId,
      url: "https://hooks.example.com/foreign",
      eventTypes: ["record.created"],
    });
    return webhook.id;
  },
  // An event of the foreign workspace, read from its own feed.
  eventId: async (tenant) => {
    await foreignId("recordId", tenant);
    const page = await bodyOf(
      await call(`/events?workspaceId=${tenant.workspaceId}&types=record.created&limit=1`, { key: tenant.key }),
      listEvents,
      200,
    );
    return page.data[0]?.id as string;
  },
  // A test delivery of the foreign subscription.
  deliveryId: async (tenant) => {
    const webhookId = await foreignId("webhookId", tenant);
    const response = await call(`/webhooks/${webhookId}/test`, { method: "POST", key: tenant.key });
    return (await bodyOf(response, testWebhook, 202)).delivery.deliveryId;
  },
  // The foreign owner's own API key: a console session must not see or touch it.
  keyId: async ({ key }) => {
    const [row] = await drizzle(env.CONTROL_DB)
      .select({ id: control.apiKeys.id })
      .from(control.apiKeys)
      .where(eq(control.apiKeys.prefix, apiKeyPrefix(key) as string));
    return row?.id as string;
  },
  // Inbox ids come from the demo conversations of the foreign workspace (the seed stores them as mail).
  conversationId: async ({ key, workspaceId }) => {
    const page = await bodyOf(
      await call(`/inbox/conversations?workspaceId=${workspaceId}&limit=1`, { key }),
      listConversations,
      200,
    );
    return page.data[0]?.id as string;
  },
  messageId: async (tenant) => {
    const conversationId = await foreignId("conversationId", tenant);
    const page = await bodyOf(
      await call(`/inbox/conversations/${conversationId}/messages?limit=1`, { key: tenant.key }),
      listConversationMessages,
      200,
    );
    return page.data[0]?.id as string;
  },
  commentId: async (tenant) => {
    const conversationId = await foreignId("conversationId", tenant);
    const { comment } = await created<{ comment: { id: string } }>(`/inbox/conversations/${conversationId}/comments`, tenant, {
      text: "Foreign comment",
    });
    return comment.id;
  },
  tagId: async (tenant) => {
    const { tag } = await created<{ tag: { id: string } }>("/inbox/tags", tenant, {
      workspaceId: tenant.workspaceId,
      name: `Foreign ${crypto.randomUUID().slice(0, 8)}`,
      color: "#123456",
    });
    return tag.id;
  },
  // `viewId` names record views; inbox views take a path parameter of their own name.
  inboxViewId: async (tenant) => {
    const { view } = await created<{ view: { id: string } }>("/inbox/views", tenant, {
      workspaceId: tenant.workspaceId,
      name: "Foreign inbox view",
      visibility: "workspace",
    });
    return view.id;
  },
  // A draft of a new conversation written by the foreign owner in their own workspace.
  draftId: async (tenant) => {
    const { draft } = await created<{ draft: { id: string } }>("/inbox/drafts", tenant, {
      workspaceId: tenant.workspaceId,
      mailbox: tenant.mailbox,
      to: ["foreign@customer.example"],
      subject: "Foreign draft",
      text: "Not yours",
    });
    return draft.id;
  },
  connectionId: async (tenant) => {
    const { connection } = await created<{ connection: { id: string } }>("/integrations/connections", tenant, {
      workspaceId: tenant.workspaceId,
      provider: "meeting_notes",
      name: "Foreign notetaker",
    });
    return connection.id;
  },
  // A meeting only comes from a provider: a signed event through the foreign tenant's own connection.
  meetingId: async (tenant) => {
    const { connection, secret } = await created<{ connection: Connection; secret: string }>(
      "/integrations/connections",
      tenant,
      {
        workspaceId: tenant.workspaceId,
        provider: "meeting_notes",
        name: "Foreign meetings",
      },
    );
    const event = {
      type: "meeting.scheduled",
      occurredAt: Date.now(),
      data: { meetingId: "foreign-1", title: "Foreign meeting" },
    };
    await expectReceived(await deliver(inboundPath(connection), secret, event));
    const page = await bodyOf(
      await call(`/meetings?workspaceId=${tenant.workspaceId}&limit=1`, { key: tenant.key }),
      listMeetings,
      200,
    );
    return page.data[0]?.id as string;
  },
  // The attachment of the seed's mail with a file (it came in through the inbound entry like any mail).
  attachmentId: async ({ key, workspaceId }) => {
    const conversations = await bodyOf(
      await call(`/inbox/conversations?workspaceId=${workspaceId}&limit=100`, { key }),
      listConversations,
      200,
    );
    const withFile = conversations.data.find((conversation) => conversation.hasAttachments);
    const messages = await bodyOf(
      await call(`/inbox/conversations/${withFile?.id}/messages`, { key }),
      listConversationMessages,
      200,
    );
    return messages.data.flatMap((message) => message.attachments)[0]?.id as string;
  },
  recordId: async (tenant) => {
    const { objectTypeId } = await foreignDeals(tenant);
    const { record } = await created<{ record: { id: string } }>("/records", tenant, {
      objectTypeId,
      fields: { name: "Foreign deal" },
    });
    return record.id;
  },
};

/** Foreign ids are made once per tenant and kind: every operation's check can use the same ones. */
const foreignIds = new Map<string, Promise<string>>();
function foreignId(name: string, tenant: ForeignTenant): Promise<string> {
  const factory = foreignIdFactories[name];
  if (!factory) throw new Error(`add a foreign-id factory for "${name}" to the auth matrix`);
  const cacheKey = `${tenant.workspaceId} ${name}`;
  let id = foreignIds.get(cacheKey);
  if (!id) {
    id = factory(tenant);
    foreignIds.set(cacheKey, id);
  }
  return id;
}

/** Creates a resource with the foreign owner's key and returns the 201 body. */
async function created<T>(path: string, tenant: ForeignTenant, json: unknown): Promise<T> {
  const response = await call(path, { method: "POST", key: tenant.key, json });
  if (response.status !== 201) throw new Error(`POST ${path} as a foreign owner: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** The foreign workspace's deals type, its stage field and a view, read through the API with its owner's key. */
async function foreignDeals({ key, workspaceId }: ForeignTenant) {
  const get = async <T>(path: string) => (await (await call(path, { key })).json()) as T;
  const { objects } = await get<{ objects: { id: string; slug: string }[] }>(`/crm/objects?workspaceId=${workspaceId}`);
  const objectTypeId = objects.find((object) => object.slug === "deals")?.id as string;
  const fields = await get<{ data: { id: string; slug: string; options: { id: string }[] }[] }>(
    `/crm/objects/${objectTypeId}/fields`,
  );
  const views = await get<{ data: { id: string }[] }>(`/crm/objects/${objectTypeId}/views`);
  const stage = fields.data.find((field) => field.slug === "stage") as { id: string; options: { id: string }[] };
  return { objectTypeId, stage, viewId: views.data[0]?.id as string };
}

const document = openApiDocument("http://127.0.0.1:8787");
type Schema = { $ref?: string; example?: unknown; required?: string[] };

function bodyExample(operation: Operation): Record<string, unknown> | undefined {
  const pathItem = document.paths?.[operation.path] as Record<
    string,
    { requestBody?: { content: Record<string, { schema: Schema }> } }
  >;
  let schema = pathItem?.[operation.method]?.requestBody?.content["application/json"]?.schema;
  if (schema?.$ref) schema = document.components?.schemas?.[schema.$ref.split("/").pop() as string] as Schema;
  if (!schema) return undefined;
  if (schema.example === undefined) throw new Error(`${operation.operationId}: give its request body schema an example`);
  return schema.example as Record<string, unknown>;
}

const idParameters = (operation: Operation) => {
  const inPath = [...operation.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] as string);
  // Required query ids only: optional filters such as `assigneeUserId` are not what names the tenant.
  const parameters =
    (document.paths?.[operation.path] as Record<string, { parameters?: { name: string; in: string; required?: boolean }[] }>)?.[
      operation.method
    ]?.parameters ?? [];
  const inQuery = parameters
    .filter((parameter) => parameter.in === "query" && parameter.required && parameter.name.endsWith("Id"))
    .map((parameter) => parameter.name);
  return { inPath, inQuery };
};

/** What a request carries to authenticate: a bearer key, or a console session's headers. */
type Credential = { key: string } | { headers: Record<string, string> };

/** A request for the operation: `ids` fills path and query ids, and replaces ids in the body example. */
function requestFor(operation: Operation, ids: Record<string, string>, credential?: Credential) {
  const { inPath, inQuery } = idParameters(operation);
  let path: string = operation.path;
  for (const name of inPath) path = path.replace(`{${name}}`, ids[name] ?? "zz_000000");
  const query = new URLSearchParams(inQuery.flatMap((name) => (ids[name] ? [[name, ids[name]]] : [])));
  // Other required query parameters take their documented example (e.g. `matchingField`).
  const pathItem = document.paths?.[operation.path] as Record<
    string,
    { parameters?: { name: string; in: string; required?: boolean; example?: unknown; schema?: { example?: unknown } }[] }
  >;
  for (const parameter of pathItem?.[operation.method]?.parameters ?? []) {
    const example = parameter.example ?? parameter.schema?.example;
    if (parameter.in === "query" && parameter.required && !query.has(parameter.name) && example !== undefined)
      query.set(parameter.name, String(example));
  }
  const example = bodyExample(operation);
  const body = example && Object.fromEntries(Object.entries(example).map(([name, value]) => [name, ids[name] ?? value]));
  return call(`${path}${query.size > 0 ? `?${query}` : ""}`, {
    method: operation.method.toUpperCase(),
    ...credential,
    ...(body ? { json: body } : {}),
  });
}

/** Arguments for the operation's MCP tool that pass its input schema: ids of the right shape, the documented examples. */
function toolArgumentsFor(operation: Operation): Record<string, unknown> {
  const { inPath } = idParameters(operation);
  const pathItem = document.paths?.[operation.path] as Record<
    string,
    { parameters?: { name: string; in: string; required?: boolean; schema?: { example?: unknown } }[] }
  >;
  const query = (pathItem?.[operation.method]?.parameters ?? [])
    .filter((parameter) => parameter.in === "query" && parameter.required)
    .map((parameter) => [parameter.name, parameter.schema?.example]);
  const writes = operation.method !== "get" && !operation.mcpHints.readOnlyHint;
  return {
    ...Object.fromEntries(inPath.map((name) => [name, "zz_000000"])),
    ...Object.fromEntries(query),
    ...bodyExample(operation),
    ...(writes ? { idempotencyKey: crypto.randomUUID() } : {}),
    ...(operation.mcpSendMode ? { sendMode: "send" } : {}),
  };
}

// Operations that take a credential: public ones (`auth: "none"`, the unsubscribe page) have none to
// check, and signed inbound webhooks are checked by test/meetings-inbound.test.ts.
const checked = catalogue.filter((operation) => operation.auth === "bearer" || operation.auth === "session");

describe.each(checked.map((operation) => ({ name: `${operation.method.toUpperCase()} ${operation.path}`, operation })))(
  "auth matrix: $name",
  ({ operation }) => {
    let people: Cast;
    beforeAll(async () => {
      people = await cast();
    });

    const session = operation.auth === "session";
    /** The caller's credential: an Acme owner's full-scope key, or (for the console's routes) a session of theirs. */
    const credentialOf = async (caller: Caller): Promise<Credential> =>
      session ? { headers: await consoleSessionHeaders(caller.id, people.acme.id) } : { key: caller.key };

    it("401 unauthorized without a credential", async () => {
      const response = await requestFor(operation, {});
      expect(response.status).toBe(401);
      // A session route has no bearer challenge to offer: the console signs in with a form.
      expect(response.headers.get("www-authenticate")).toBe(
        session
          ? null
          : `Bearer realm="api", resource_metadata="${new URL(baseUrl).origin}/.well-known/oauth-protected-resource/api/v1"`,
      );
      expect((await errorOf(response)).code).toBe("unauthorized");
    });

    // A session route refuses every bearer credential; a bearer route tells bad ones apart.
    if (session) {
      it("403 forbidden for every bearer credential, a valid full-scope key included", async () => {
        const { acme, alice } = people;
        for (const key of ["garbage", acme.expiredKey, alice.apiKey]) {
          const response = await requestFor(operation, {}, { key: key as string });
          expect(response.status, `key ${key}`).toBe(403);
          expect((await errorOf(response)).code).toBe("forbidden");
        }
      });
    } else {
      it("401 invalid_token for garbage, expired and revoked keys", async () => {
        const { acme } = people;
        for (const key of ["garbage", `crm_${"A".repeat(12)}_${"b".repeat(43)}`, acme.expiredKey, acme.revokedKey]) {
          const response = await requestFor(operation, {}, { key: key as string });
          expect(response.status, `key ${key}`).toBe(401);
          expect((await errorOf(response)).code).toBe("invalid_token");
        }
      });
    }

    it.skipIf(operation.scope === null)("403 insufficient_scope without the route's scope", async () => {
      const { acme, alice } = people;
      const { key } = await createKey({
        organizationId: acme.id,
        ownerId: alice.id,
        scopes: scopes.filter((scope) => scope !== operation.scope),
      });
      const response = await requestFor(operation, {}, { key });
      expect(response.status).toBe(403);
      expect(response.headers.get("www-authenticate")).toContain(`scope="${operation.scope}"`);
      expect((await errorOf(response)).code).toBe("insufficient_scope");
    });

    // The operation's MCP tool runs the same scope check: refused as a tool error, not a protocol one.
    it.skipIf(operation.scope === null || operation.auth !== "bearer")(
      "MCP: its tool refuses without the route's scope",
      async () => {
        const { acme, alice } = people;
        const { key } = await createKey({
          organizationId: acme.id,
          ownerId: alice.id,
          scopes: scopes.filter((scope) => scope !== operation.scope),
        });
        const result = await rawToolCall(key, operation.mcpTool as string, toolArgumentsFor(operation));
        expect(toolError(result).error).toMatchObject({
          code: "insufficient_scope",
          details: { requiredScope: operation.scope },
        });
      },
    );

    const { inPath, inQuery } = idParameters(operation);
    // Ids in the body count too when they name a tenant's resource (e.g. `workspaceId` on creation).
    const inBody = Object.keys(bodyExample(operation) ?? {}).filter((name) => name in foreignIdFactories);
    const tenantInputs = [...new Set([...inPath, ...inQuery, ...inBody])];
    for (const [tenantName, foreign] of Object.entries(foreignTenants)) {
      it.skipIf(tenantInputs.length === 0)(`404 for ids of another organization: ${tenantName}`, async () => {
        const tenant = await foreign.tenant(people);
        const ids: Record<string, string> = {};
        for (const name of tenantInputs) ids[name] = await foreignId(name, tenant);
        const response = await requestFor(operation, ids, await credentialOf(await foreign.caller(people)));
        expect(response.status).toBe(404);
        expect((await errorOf(response)).code).toBe("not_found");
      });
    }
  },
);

describe("auth matrix: the foreign tenants", () => {
  it("include one in the caller's own database and one on the other shard of its region", async () => {
    const { acme, initech } = await cast();
    expect((await acmeShardNeighbour()).shard).toBe(acme.shard);
    expect([initech.region, initech.shard]).toEqual([acme.region, 2]);
    expect(acme.shard).toBe(1);
  });
});
