import { z } from "@hono/zod-openapi";
import { eventTypes } from "../events";
import { timestampMs } from "../ids";
import { defineOperation, jsonResponse, withoutCredential } from "../operation";
import { listResponse, pageQuery } from "../pagination";
import { cacheableHeaders } from "../responses";
import { outputText } from "../strings";

/** Any JSON Schema (2020-12): an object whose keywords this document does not restate. */
const jsonSchema = (description: string) =>
  z.record(z.string().max(255), z.unknown()).openapi({ description: `${description} (JSON Schema 2020-12)` });

const triggerSchema = z
  .object({
    key: z.enum(eventTypes).openapi({ description: "The event type, as `GET /webhooks/event-types` lists it" }),
    name: outputText(),
    description: outputText(1_000),
    payloadSchema: jsonSchema("The body of the webhook delivery: the event envelope with this type's `data`"),
  })
  .openapi("IntegrationTrigger");

const actionSchema = z
  .object({
    key: outputText(64).openapi({ description: "The operation's `operationId` in the OpenAPI document" }),
    name: outputText(),
    description: outputText(2_000),
    method: z.enum(["POST", "PUT", "PATCH", "DELETE"]),
    path: outputText(255).openapi({ description: "Relative to `{base_url}`, with `{parameter}` placeholders" }),
    scope: outputText(64).nullable().openapi({ description: "The OAuth scope or API key scope the operation needs" }),
    inputSchema: jsonSchema("The request as an object: `path` parameters, `query` parameters and the JSON `body`"),
  })
  .openapi("IntegrationAction");

const slug = z
  .string()
  .max(64)
  .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/)
  .openapi({ example: "automation-platform" });

export const integrationSchema = z
  .object({
    slug,
    name: outputText(),
    tagline: outputText(),
    description: outputText(2_000),
    categories: z.array(outputText(64)).max(10),
    logoUrl: z.string().max(4_096).openapi({ format: "uri", description: "An SVG image (a `data:` URL, served with the entry)" }),
    docsUrl: z.string().url().max(2_048),
    publishedAt: timestampMs,
    triggers: z
      .array(triggerSchema)
      .max(eventTypes.length)
      .openapi({ description: "Instant triggers: the event types a webhook subscription delivers" }),
    actions: z.array(actionSchema).max(200).openapi({ description: "The public write operations an integration can run" }),
  })
  .openapi("Integration");

export type Integration = z.infer<typeof integrationSchema>;

/** A weak or strong validator list, `*`, as RFC 9110 section 13.1.2 defines it; compared weakly. */
const conditionalHeaders = z.object({
  "if-none-match": z
    .string()
    .max(8_192)
    .optional()
    .openapi({ description: "ETags of representations you hold (or `*`): 304 without a body when one is current" }),
});

const cachedResponses = <T extends z.ZodType>(description: string, schema: T) => ({
  200: { ...jsonResponse(description, schema), headers: cacheableHeaders },
  304: { description: "Not modified: the representation you named in `If-None-Match` is current", headers: cacheableHeaders },
});

const publicCatalogueNote =
  "Public: no credential, limited per client address. Cacheable: `ETag` and `Cache-Control`; send `If-None-Match` to get 304 while nothing changed.";

export const listIntegrations = defineOperation({
  operationId: "listIntegrations",
  tag: "Public",
  summary: "List published integrations",
  description: `Every published integration of the CRM: the automation platform (its instant triggers are the webhook event types, its actions the public write operations, each with its JSON Schema), the meeting-notes and calling providers, and MCP clients. ${publicCatalogueNote}`,
  ...withoutCredential,
  method: "get",
  path: "/public/integrations/crm",
  request: { headers: conditionalHeaders, query: z.object(pageQuery).strict() },
  responses: cachedResponses("A page of the published integrations", listResponse(integrationSchema)),
});

export const getIntegration = defineOperation({
  operationId: "getIntegration",
  tag: "Public",
  summary: "Get a published integration",
  description: `One published integration by its slug (an unknown slug is 404). ${publicCatalogueNote}`,
  ...withoutCredential,
  method: "get",
  path: "/public/integrations/crm/{slug}",
  request: {
    params: z.object({ slug: slug.openapi({ param: { name: "slug", in: "path" } }) }),
    headers: conditionalHeaders,
  },
  responses: cachedResponses("The integration", z.object({ integration: integrationSchema })),
});

export const changeCategories = ["addition", "behaviour_change", "removal"] as const;

const changelogEntrySchema = z
  .object({
    date: z
      .string()
      .max(10)
      .regex(/^\d{4}-\d{2}-\d{2}$/)
      .openapi({ format: "date", example: "2026-11-23" }),
    category: z.enum(changeCategories),
    summary: outputText(4_000).openapi({ description: "Markdown" }),
    routes: z.array(outputText(300)).max(100).openapi({
      description:
        "`METHOD /path` of every route the change concerns; paths relative to `{base_url}`, except the OAuth server, console and MCP endpoint, which are at the origin (`/oauth/…`, `/.well-known/…`, `/console/…`, `/mcp`). Empty when the change concerns the API as a whole.",
    }),
  })
  .openapi("ChangelogEntry");

export const getChangelog = defineOperation({
  operationId: "getChangelog",
  tag: "Public",
  summary: "Read the change log",
  description: `The dated change log of the API, newest first, the same entries as \`CHANGELOG.md\`: additions, behaviour changes and removals, each naming the routes it concerns. ${publicCatalogueNote}`,
  ...withoutCredential,
  method: "get",
  path: "/changelog",
  request: { headers: conditionalHeaders },
  responses: cachedResponses("The change log", z.object({ entries: z.array(changelogEntrySchema).max(1_000) })),
});
