import { z } from "@hono/zod-openapi";
import { deliveredEventTypes, eventTypes } from "../events";
import { deletedSchema, emptyBodySchema, idSchema, integer, pathId, timestampMs } from "../ids";
import { costUnits, defineOperation, jsonBody, jsonResponse } from "../operation";
import { listResponse, pageQuery, paginationSchema } from "../pagination";
import { withSigningSecretShownOnce } from "../standard-webhooks";
import { outputText } from "../strings";

export const webhookSchema = z
  .object({
    id: idSchema("whk"),
    workspaceId: idSchema("ws"),
    url: z.string().url().max(2048),
    eventTypes: z.array(z.enum(eventTypes)).max(eventTypes.length),
    objectTypeIds: z
      .array(idSchema("obj"))
      .max(100)
      .openapi({ description: "Only events of these object types; empty means all" }),
    description: outputText(500).nullable(),
    isActive: z.boolean(),
    disabledReason: outputText(32)
      .nullable()
      .openapi({ description: '"gone" when a 410 from the receiver disabled the subscription' }),
    createdAt: timestampMs,
    updatedAt: timestampMs,
  })
  .openapi("Webhook");

/** The health of a subscription's endpoint, as its delivery lane sees it (docs/webhooks.md). */
export const endpointStateSchema = z
  .object({
    status: z.enum(["healthy", "failing", "disabled"]).openapi({
      description:
        "`healthy`: the last attempt got an answer (or none was made yet); `failing`: the last attempts timed out, could not connect or got a 5xx or 429 (after 5 in a row the circuit breaker holds deliveries back and lets one probe through at a time, waiting twice as long after each failed probe, up to 5 minutes); `disabled`: the subscription is inactive (`isActive: false`), nothing is sent",
    }),
    consecutiveFailures: integer(0, 1_000_000_000),
    lastFailureAt: timestampMs.nullable(),
    lastFailure: outputText(500)
      .nullable()
      .openapi({ description: "What went wrong the last time, e.g. `Timed out after 15 s`" }),
    nextAttemptAt: timestampMs
      .nullable()
      .openapi({ description: "When the endpoint is tried next; null when nothing waits for it" }),
  })
  .openapi("WebhookEndpointState");

const withSecret = withSigningSecretShownOnce("webhook", webhookSchema, "POST /webhooks/{webhookId}/rotate-secret");
const webhookParams = z.object({ webhookId: pathId("webhookId", "whk") });
const webhookResponse = z.object({ webhook: webhookSchema });
const webhookWithStateResponse = z.object({
  webhook: webhookSchema.extend({ endpointState: endpointStateSchema }).openapi("WebhookWithEndpointState"),
});
const urlNote =
  "`url` must be https, without credentials, and not a private, loopback, link-local or metadata address or an internal name (400 otherwise); deliveries never follow redirects. Admins and owners only.";

const subscription = {
  url: z.string().url().max(2048),
  eventTypes: z.array(z.enum(eventTypes)).min(1).max(eventTypes.length),
  objectTypeIds: z.array(idSchema("obj")).max(100).optional(),
  description: z.string().max(500).optional(),
};

export const listEventTypes = defineOperation({
  operationId: "listEventTypes",
  tag: "Webhooks",
  summary: "List the event types",
  description: "The 14 event types subscriptions can filter on, a page at a time.",
  scope: "webhooks:read",
  costUnits: costUnits.read,
  mcpTool: "webhooks_event_types",
  method: "get",
  path: "/webhooks/event-types",
  request: { query: z.object(pageQuery).strict() },
  responses: {
    200: jsonResponse(
      "A page of the event types",
      listResponse(z.object({ type: z.enum(eventTypes), description: outputText() }).openapi("EventType")),
    ),
  },
});

export const createWebhook = defineOperation({
  operationId: "createWebhook",
  tag: "Webhooks",
  summary: "Subscribe to events",
  description: `Deliveries are signed as Standard Webhooks with the returned \`secret\` and carry \`User-Agent: CRM-Webhooks/<API version>\`. The secret is shown in this response only: a replay with the same \`Idempotency-Key\` answers \`secret: null\` and a \`notice\`. \`objectTypeIds\` must be object types of the workspace (400 with a detail per other id). A workspace holds at most 50 subscriptions: 409 \`conflict\` beyond. ${urlNote}`,
  scope: "webhooks:write",
  costUnits: costUnits.write,
  mcpTool: "webhooks_create",
  method: "post",
  path: "/webhooks",
  request: {
    body: jsonBody(
      z
        .object({ workspaceId: idSchema("ws"), ...subscription })
        .strict()
        .openapi("CreateWebhook", {
          example: {
            workspaceId: "ws_01jd5q0m4x8r2w3y6z7a9b",
            url: "https://hooks.example.com/crm",
            eventTypes: ["record.created"],
          },
        }),
    ),
  },
  responses: { 201: jsonResponse("The subscription and its secret", withSecret) },
});

export const listWebhooks = defineOperation({
  operationId: "listWebhooks",
  tag: "Webhooks",
  summary: "List subscriptions",
  description: "Webhook subscriptions of a workspace, oldest first; secrets are never listed.",
  scope: "webhooks:read",
  costUnits: costUnits.read,
  mcpTool: "webhooks_list",
  method: "get",
  path: "/webhooks",
  request: {
    query: z
      .object({ workspaceId: idSchema("ws").openapi({ param: { name: "workspaceId", in: "query" } }), ...pageQuery })
      .strict(),
  },
  responses: { 200: jsonResponse("A page of subscriptions", listResponse(webhookSchema)) },
});

export const getWebhook = defineOperation({
  operationId: "getWebhook",
  tag: "Webhooks",
  summary: "Get a subscription",
  description:
    "A webhook subscription without its secret, with the health of its endpoint (`endpointState`): whether deliveries get through, the last failure and when the endpoint is tried next.",
  scope: "webhooks:read",
  costUnits: costUnits.read,
  mcpTool: "webhooks_get",
  singleResource: true,
  method: "get",
  path: "/webhooks/{webhookId}",
  request: { params: webhookParams },
  responses: { 200: jsonResponse("The subscription and its endpoint's health", webhookWithStateResponse) },
});

export const updateWebhook = defineOperation({
  operationId: "updateWebhook",
  tag: "Webhooks",
  summary: "Update a subscription",
  description: `Reactivating (\`isActive: true\`) clears \`disabledReason\`. \`objectTypeIds\` must be object types of the subscription's workspace (400 with a detail per other id). ${urlNote}`,
  scope: "webhooks:write",
  costUnits: costUnits.write,
  mcpTool: "webhooks_update",
  method: "patch",
  path: "/webhooks/{webhookId}",
  request: {
    params: webhookParams,
    body: jsonBody(
      z
        .object({
          url: subscription.url.optional(),
          eventTypes: subscription.eventTypes.optional(),
          objectTypeIds: subscription.objectTypeIds,
          description: z.string().max(500).nullable().optional(),
          isActive: z.boolean().optional(),
        })
        .strict()
        .openapi("UpdateWebhook", { example: { isActive: true } }),
    ),
  },
  responses: { 200: jsonResponse("The updated subscription", webhookResponse) },
});

export const deleteWebhook = defineOperation({
  operationId: "deleteWebhook",
  tag: "Webhooks",
  summary: "Delete a subscription",
  description: "Permanent; nothing more is delivered to it. Admins and owners only.",
  scope: "webhooks:write",
  costUnits: costUnits.write,
  mcpTool: "webhooks_delete",
  method: "delete",
  path: "/webhooks/{webhookId}",
  request: { params: webhookParams, body: jsonBody(emptyBodySchema, false) },
  responses: { 200: jsonResponse("The id of the deleted subscription", deletedSchema) },
});

export const rotateWebhookSecret = defineOperation({
  operationId: "rotateWebhookSecret",
  tag: "Webhooks",
  summary: "Rotate the signing secret",
  description:
    "Returns the new secret, shown this once (a replay with the same `Idempotency-Key` answers `secret: null` and a `notice`). For 24 hours deliveries carry signatures by both the old and the new secret. Admins and owners only.",
  scope: "webhooks:write",
  costUnits: costUnits.write,
  mcpTool: "webhooks_rotate_secret",
  method: "post",
  path: "/webhooks/{webhookId}/rotate-secret",
  request: { params: webhookParams, body: jsonBody(emptyBodySchema, false) },
  responses: {
    200: jsonResponse("The subscription and its new secret", withSecret),
  },
});

export const deliveryAttemptSchema = z
  .object({
    deliveryId: outputText(73).openapi({ description: "The `webhook-id` header: stable across retries" }),
    attempt: integer(1, 1_000),
    eventId: idSchema("evt"),
    eventType: z.enum(deliveredEventTypes),
    status: z.enum(["delivered", "failed", "retrying", "rate_limited"]),
    responseStatus: integer(100, 599).nullable(),
    error: outputText(1_000).nullable(),
    durationMs: integer(0, 3_600_000).nullable(),
    nextAttemptAt: timestampMs.nullable(),
    createdAt: timestampMs,
  })
  .openapi("WebhookDeliveryAttempt");

export const listWebhookDeliveries = defineOperation({
  operationId: "listWebhookDeliveries",
  tag: "Webhooks",
  summary: "Delivery attempts and statistics",
  description:
    "Attempts, newest first, and statistics over the subscription's deliveries by their latest state: delivered, failed (after the last retry, or disabled by a 410), pending (waiting for a retry), rateLimited (held back by the workspace's burst limit of 350).",
  scope: "webhooks:read",
  costUnits: costUnits.read,
  mcpTool: "webhooks_deliveries",
  method: "get",
  path: "/webhooks/{webhookId}/deliveries",
  request: { params: webhookParams, query: z.object(pageQuery).strict() },
  responses: {
    200: jsonResponse(
      "A page of attempts and the statistics",
      z.object({
        data: z.array(deliveryAttemptSchema).max(100),
        pagination: paginationSchema,
        statistics: z.object({
          delivered: integer(0, Number.MAX_SAFE_INTEGER),
          failed: integer(0, Number.MAX_SAFE_INTEGER),
          pending: integer(0, Number.MAX_SAFE_INTEGER),
          rateLimited: integer(0, Number.MAX_SAFE_INTEGER),
        }),
      }),
    ),
  },
});
