import { z } from "@hono/zod-openapi";
import { emptyBodySchema, idSchema, pathId, timestampMs } from "../ids";
import { costUnits, defineOperation, jsonBody, jsonResponse } from "../operation";
import { listResponse, pageQuery } from "../pagination";
import { scopes } from "../scopes";
import { label, outputText } from "../strings";

/** Expiry choices of a new key (DESIGN.md section 3); null = never expires. */
export const apiKeyExpiryDays = [7, 30, 60, 90] as const;
/** Live keys one user may hold in one organization: the list answers them all, so it stays short. */
export const maxApiKeysPerUser = 100;
/** Activity rows a key's answer carries, newest first. */
export const apiKeyActivityLimit = 50;

export const apiKeyActivitySchema = z
  .object({
    at: timestampMs,
    method: outputText(10),
    route: outputText(300).openapi({ description: "Path template of the operation", example: "/workspaces" }),
    status: z.number().int().min(100).max(599).openapi({ format: "int32" }),
    ip: outputText(64).nullable(),
  })
  .openapi("ApiKeyActivity");

export const apiKeySchema = z
  .object({
    id: idSchema("key"),
    name: outputText(),
    prefix: z
      .string()
      .regex(/^[0-9A-Za-z]{12}$/)
      .max(12)
      .openapi({ description: "Public part of the key: `crm_<prefix>_…`", example: "AbCdEf012345" }),
    scopes: z.array(z.enum(scopes)).max(scopes.length),
    workspaceIds: z
      .array(idSchema("ws"))
      .max(100)
      .nullable()
      .openapi({ description: "Workspace limit; null = every workspace the owner can access" }),
    expiresAt: timestampMs.nullable(),
    lastUsedAt: timestampMs.nullable(),
    createdAt: timestampMs,
  })
  .openapi("ApiKey");
export type ApiKey = z.infer<typeof apiKeySchema>;

const keyText = z
  .string()
  .regex(/^crm_[0-9A-Za-z]{12}_[0-9A-Za-z]{43}$/)
  .max(60)
  .openapi({
    description: "The full key. Shown in this response only: store it now.",
    example: `crm_AbCdEf012345_${"x".repeat(43)}`,
  });

export const apiKeySettingsSchema = z
  .object({
    name: label(),
    scopes: z
      .array(z.enum(scopes))
      .min(1)
      .max(scopes.length)
      .refine((list) => new Set(list).size === list.length, "Each scope at most once"),
    workspaceIds: z.array(idSchema("ws")).min(1).max(100).nullable().optional().openapi({
      description: "Workspaces of the organization the key may reach; omitted or null = every one the owner can access",
    }),
    expiresInDays: z
      .literal(apiKeyExpiryDays)
      .nullable()
      .optional()
      .openapi({
        description: "7, 30, 60 or 90; omitted or null = never expires",
        type: "integer",
        format: "int32",
        minimum: 7,
        maximum: 90,
        enum: [...apiKeyExpiryDays],
      }),
  })
  .strict()
  .openapi("ApiKeySettings", {
    example: { name: "Reporting", scopes: ["crm:records:read"] },
  });
export type ApiKeySettings = z.infer<typeof apiKeySettingsSchema>;

const apiKeyParams = z.object({ keyId: pathId("keyId", "key") });
const createdKey = z.object({ apiKey: apiKeySchema, key: keyText });
const sessionNote =
  "Console session only (the `__Host-session` cookie of the same origin, plus the `X-CSRF-Token` header the console pages carry on unsafe methods): an API key or OAuth token gets 403 `forbidden`, since keys are managed from the console.";

/** What every key operation shares: the console's session only, served by the gateway, free, never an MCP tool. */
const consoleOnly = {
  tag: "API keys",
  scope: null,
  costUnits: costUnits.free,
  auth: "session",
  mcpTool: null,
  servedBy: "gateway",
} as const;

export const listApiKeys = defineOperation({
  operationId: "listApiKeys",
  ...consoleOnly,
  summary: "List your API keys",
  description: `Your live (not revoked) API keys in the session's organization, newest first, a page at a time (at most ${maxApiKeysPerUser} live keys exist). ${sessionNote}`,
  method: "get",
  path: "/api-keys",
  request: { query: z.object(pageQuery).strict() },
  responses: { 200: jsonResponse("A page of your keys", listResponse(apiKeySchema)) },
});

export const createApiKey = defineOperation({
  operationId: "createApiKey",
  ...consoleOnly,
  summary: "Create an API key",
  description: `A new key with the given name, scopes, workspace limit and expiry; the full key is in this response only. At most ${maxApiKeysPerUser} live keys per user and organization (409 \`conflict\` beyond). A workspace you cannot reach → 404. ${sessionNote}`,
  method: "post",
  path: "/api-keys",
  request: { body: jsonBody(apiKeySettingsSchema) },
  responses: { 201: jsonResponse("The key, shown once", createdKey) },
});

export const getApiKey = defineOperation({
  operationId: "getApiKey",
  ...consoleOnly,
  summary: "Get an API key with its activity",
  description: `One of your live keys and its latest ${apiKeyActivityLimit} uses (time, route, status, IP), newest first. ${sessionNote}`,
  method: "get",
  path: "/api-keys/{keyId}",
  request: { params: apiKeyParams },
  responses: {
    200: jsonResponse(
      "The key",
      z.object({ apiKey: apiKeySchema, activity: z.array(apiKeyActivitySchema).max(apiKeyActivityLimit) }),
    ),
  },
});

export const revokeApiKey = defineOperation({
  operationId: "revokeApiKey",
  ...consoleOnly,
  summary: "Revoke an API key",
  description: `The key is refused at once by the gateway isolate that revoked it and within 60 seconds everywhere. ${sessionNote}`,
  method: "delete",
  path: "/api-keys/{keyId}",
  request: { params: apiKeyParams, body: jsonBody(emptyBodySchema, false) },
  responses: { 200: jsonResponse("The key is revoked", z.object({ deletedId: idSchema("key") })) },
});

export const replaceApiKey = defineOperation({
  operationId: "replaceApiKey",
  ...consoleOnly,
  summary: "Replace an API key",
  description: `A new key with the same name, scopes, workspace limit and expiry period, and the old key revoked, in one step. ${sessionNote}`,
  method: "post",
  path: "/api-keys/{keyId}/replace",
  request: { params: apiKeyParams, body: jsonBody(emptyBodySchema, false) },
  responses: {
    201: jsonResponse("The new key, shown once", createdKey.extend({ replacedId: idSchema("key") })),
  },
});
