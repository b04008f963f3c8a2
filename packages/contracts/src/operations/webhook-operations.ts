import { z } from "@hono/zod-openapi";
import { deliveredEventTypes } from "../events";
import { emptyBodySchema, idSchema, integer, pathId, timestampMs } from "../ids";
import { costUnits, defineOperation, jsonBody, jsonResponse } from "../operation";

/** A delivery handed to the subscription's lane: it shows in `GET /webhooks/{webhookId}/deliveries` once attempted. */
export const webhookDeliverySchema = z
  .object({
    deliveryId: idSchema("dlv").openapi({ description: "The `webhook-id` header of the delivery" }),
    webhookId: idSchema("whk"),
    eventId: idSchema("evt"),
    eventType: z.enum(deliveredEventTypes),
    attempt: integer(1, 1_000),
    status: z.enum(["queued"]).openapi({ description: "Handed to the subscription's delivery lane, which sends it next" }),
  })
  .openapi("WebhookDelivery");

const webhookParams = z.object({ webhookId: pathId("webhookId", "whk") });
const disabledNote =
  "An inactive subscription (`isActive: false`, e.g. disabled after a 410) is refused with 409 `webhook_disabled`, the reason in `details`. Admins and owners only.";

export const testWebhook = defineOperation({
  operationId: "testWebhook",
  tag: "Webhooks",
  summary: "Send a test delivery",
  description: `Sends a \`webhook.test\` event to this subscription only, signed like every delivery and through its own delivery lane (the workspace's burst limit applies), so it shows in its deliveries and retries like any other. ${disabledNote}`,
  scope: "webhooks:write",
  costUnits: costUnits.write,
  mcpTool: "webhooks_test",
  method: "post",
  path: "/webhooks/{webhookId}/test",
  request: { params: webhookParams, body: jsonBody(emptyBodySchema, false) },
  responses: { 202: jsonResponse("The test delivery, queued", z.object({ delivery: webhookDeliverySchema })) },
  errors: ["webhook_disabled"],
});

export const redeliverWebhookDelivery = defineOperation({
  operationId: "redeliverWebhookDelivery",
  tag: "Webhooks",
  summary: "Redeliver a delivery",
  description: `A new attempt of a delivery that ended (delivered or failed), with the same \`webhook-id\` and body, e.g. after fixing a receiver; it counts on from the delivery's last attempt (a failure after the retry schedule is the last attempt). A delivery still waiting for a retry is 409 \`delivery_pending\`; one whose event is older than 30 days is 404. ${disabledNote}`,
  scope: "webhooks:write",
  costUnits: costUnits.write,
  mcpTool: "webhooks_redeliver",
  method: "post",
  path: "/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver",
  request: {
    params: z.object({ webhookId: pathId("webhookId", "whk"), deliveryId: pathId("deliveryId", "dlv") }),
    body: jsonBody(emptyBodySchema, false),
  },
  responses: { 202: jsonResponse("The new attempt, queued", z.object({ delivery: webhookDeliverySchema })) },
  errors: ["webhook_disabled", "delivery_pending"],
});

export const replayWebhook = defineOperation({
  operationId: "replayWebhook",
  tag: "Webhooks",
  summary: "Replay events",
  description: `Delivers again exactly the deliveries this subscription was sent for events written from \`sinceMs\` (at most 30 days back) up to \`untilMs\` (default now), oldest first, each with its original \`webhook-id\`: never an event that only its present filters match, and after a change of its \`url\` only events written after that change. They spend the workspace's burst limit (350 deliveries a minute) at a lower priority than live deliveries, which always go first, and through the subscription's own lane (at most 8 in flight, its retries and circuit breaker). One replay runs at a time per subscription: while the deliveries of another still wait, a replay is 409 \`replay_in_progress\` (\`details.waiting\`: how many). It costs 0.4 per delivery queued. ${disabledNote}`,
  scope: "webhooks:write",
  costUnits: costUnits.write,
  // A subscription's deliveries of 30 days: far more than any workspace's burst limit lets through.
  costPer: { unit: "delivery queued", atMost: 1_000_000 },
  mcpTool: "webhooks_replay",
  method: "post",
  path: "/webhooks/{webhookId}/replay",
  request: {
    params: webhookParams,
    body: jsonBody(
      z
        .object({
          sinceMs: timestampMs.openapi({ description: "From this time (Unix ms), at most 30 days back" }),
          untilMs: timestampMs.optional().openapi({ description: "Up to this time (Unix ms, exclusive); default now" }),
        })
        .strict()
        .openapi("ReplayWebhook", { example: { sinceMs: 1764000000000 } }),
    ),
  },
  responses: {
    202: jsonResponse(
      "How many deliveries were queued",
      z.object({ queued: integer(0, Number.MAX_SAFE_INTEGER).openapi({ description: "Deliveries handed to the lane" }) }),
    ),
  },
  errors: ["webhook_disabled", "replay_in_progress"],
});
