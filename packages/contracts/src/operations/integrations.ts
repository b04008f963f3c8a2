import { z } from "@hono/zod-openapi";
import { deletedSchema, emptyBodySchema, idSchema, pathId, timestampMs } from "../ids";
import { costUnits, defineOperation, jsonBody, jsonResponse } from "../operation";
import { listResponse, pageQuery } from "../pagination";
import { withSigningSecretShownOnce } from "../standard-webhooks";
import { label, outputText } from "../strings";
import { callingEventSchema, meetingNotesEventSchema } from "./provider-events";

export const connectionProviders = ["meeting_notes", "calling"] as const;

export const connectionSchema = z
  .object({
    id: idSchema("conn"),
    workspaceId: idSchema("ws"),
    provider: z.enum(connectionProviders),
    name: outputText(),
    inboundUrl: z.string().url().max(2048).openapi({
      description:
        "Where the provider posts its signed events. For calling connections the `{provider}` segment is the provider's name as given in `name`, lower-cased; any name of 1 to 32 lowercase letters, digits and hyphens is accepted there.",
    }),
    createdAt: timestampMs,
    secretRotatedAt: timestampMs.nullable(),
  })
  .openapi("IntegrationConnection");

const withSecret = withSigningSecretShownOnce(
  "connection",
  connectionSchema,
  "POST /integrations/connections/{connectionId}/rotate-secret",
);
const connectionParams = z.object({ connectionId: pathId("connectionId", "conn") });
const adminsNote = "Admins and owners of the workspace only.";

export const createConnection = defineOperation({
  operationId: "createConnection",
  tag: "Integrations",
  summary: "Connect a provider",
  description: `A meeting-notes or calling provider's connection to a workspace: the provider posts Standard Webhooks signed with the returned \`secret\` to \`inboundUrl\`. ${adminsNote}`,
  scope: "integrations:write",
  costUnits: costUnits.write,
  mcpTool: "integrations_connections_create",
  method: "post",
  path: "/integrations/connections",
  request: {
    body: jsonBody(
      z
        .object({ workspaceId: idSchema("ws"), provider: z.enum(connectionProviders), name: label() })
        .strict()
        .openapi("CreateIntegrationConnection", {
          example: { workspaceId: "ws_01jd5q0m4x8r2w3y6z7a9b", provider: "meeting_notes", name: "Notetaker" },
        }),
    ),
  },
  responses: { 201: jsonResponse("The connection and its signing secret", withSecret) },
});

export const listConnections = defineOperation({
  operationId: "listConnections",
  tag: "Integrations",
  summary: "List provider connections",
  description: `The workspace's connections, oldest first, without secrets, a page at a time. ${adminsNote}`,
  scope: "integrations:read",
  costUnits: costUnits.read,
  mcpTool: "integrations_connections_list",
  method: "get",
  path: "/integrations/connections",
  request: {
    query: z
      .object({ workspaceId: idSchema("ws").openapi({ param: { name: "workspaceId", in: "query" } }), ...pageQuery })
      .strict(),
  },
  responses: { 200: jsonResponse("A page of the workspace's connections", listResponse(connectionSchema)) },
});

export const deleteConnection = defineOperation({
  operationId: "deleteConnection",
  tag: "Integrations",
  summary: "Disconnect a provider",
  description: `Its inbound URL answers 404 from now on; meetings it delivered stay. ${adminsNote}`,
  scope: "integrations:write",
  costUnits: costUnits.write,
  mcpTool: "integrations_connections_delete",
  method: "delete",
  path: "/integrations/connections/{connectionId}",
  request: { params: connectionParams, body: jsonBody(emptyBodySchema, false) },
  responses: { 200: jsonResponse("The connection is gone", deletedSchema) },
});

export const rotateConnectionSecret = defineOperation({
  operationId: "rotateConnectionSecret",
  tag: "Integrations",
  summary: "Rotate a connection's signing secret",
  description: `Returns the new secret, shown this once. For 24 hours events signed with the previous secret are still accepted, so the provider can switch without a gap. ${adminsNote}`,
  scope: "integrations:write",
  costUnits: costUnits.write,
  mcpTool: "integrations_connections_rotate_secret",
  method: "post",
  path: "/integrations/connections/{connectionId}/rotate-secret",
  request: { params: connectionParams, body: jsonBody(emptyBodySchema, false) },
  responses: { 200: jsonResponse("The connection and its new secret", withSecret) },
});

const receivedSchema = z.object({ received: z.literal(true) }).openapi("InboundReceived");
const signatureNote =
  "No bearer token: the request must carry a Standard Webhooks signature made with the connection's secret (`webhook-id`, `webhook-timestamp` within 5 minutes, `webhook-signature` `v1,<base64 HMAC-SHA256 of id.timestamp.body>`); a missing, wrong or stale signature is 401, an unknown or deleted connection 404, a body not sent as `application/json` 415 and a path segment its pattern refuses 400 (both before the connection is looked up), a body that is not JSON 400, one of 1 MiB or more 413, and nothing is stored. Each `webhook-id` is applied once (kept at least 72 hours): a repeat, even a concurrent one, answers 200 and changes nothing. An event type this version does not know answers 200 and is recorded, not applied. Rate-limited per connection and per client address.";

export const receiveMeetingNotesEvent = defineOperation({
  operationId: "receiveMeetingNotesEvent",
  tag: "Integrations",
  summary: "Receive a meeting-notes provider's event",
  description: `Meetings and participants are upserted by the provider's ids, never moved back by an older \`occurredAt\`; participants are matched to people records by e-mail; each action item of \`transcript.ready\` becomes one source-managed task. ${signatureNote}`,
  scope: null,
  costUnits: costUnits.free,
  auth: "signature",
  servedBy: "gateway",
  mcpTool: null,
  method: "post",
  path: "/integrations/meeting-notes/webhooks/{connectionId}",
  request: { params: connectionParams, body: jsonBody(meetingNotesEventSchema) },
  responses: { 200: jsonResponse("Accepted (first delivery or a repeat)", receivedSchema) },
  errors: ["not_found", "payload_too_large"],
});

export const receiveCallingEvent = defineOperation({
  operationId: "receiveCallingEvent",
  tag: "Integrations",
  summary: "Receive a calling provider's event",
  description: `A call is a meeting of the workspace keyed by the provider's \`callId\`: the events set \`callStatus\`, \`startedAtMs\`, \`endedAtMs\`, \`durationSec\`, \`callRecordingId\` and \`recordingStatus\`. ${signatureNote}`,
  scope: null,
  costUnits: costUnits.free,
  auth: "signature",
  servedBy: "gateway",
  mcpTool: null,
  method: "post",
  path: "/calling/webhooks/{provider}/{connectionId}",
  request: {
    params: z.object({
      provider: z
        .string()
        .regex(/^[a-z0-9-]{1,32}$/)
        .max(32)
        .openapi({ param: { name: "provider", in: "path" }, example: "aircall" }),
      connectionId: pathId("connectionId", "conn"),
    }),
    body: jsonBody(callingEventSchema),
  },
  responses: { 200: jsonResponse("Accepted (first delivery or a repeat)", receivedSchema) },
  errors: ["not_found", "payload_too_large"],
});
