import type { operations } from "@crm/contracts";
import type { RouteHandler } from "@hono/zod-openapi";
import type { Context } from "hono";
import { gatewayConfig } from "../config";
import type { GatewayAppEnv } from "../env";
import { listCursorSecret } from "../identity/identity-secret";
import { gatewayCall } from "../pipeline/operation-call";
import { activityOf, createKey, getKey, pageOfKeys, reachableWorkspaces, replaceKey, revokeKey } from "./api-key-store";

/** The `/api-keys` routes: the console session's user manages their own keys in the session's organization. */
type Handler<Id extends keyof typeof operations> = RouteHandler<(typeof operations)[Id]["route"], GatewayAppEnv>;

const ownerOf = (c: Context<GatewayAppEnv>) => ({ organizationId: c.var.actor.organizationId, userId: c.var.actor.actor.id });

export const listApiKeys: Handler<"listApiKeys"> = async (c) =>
  c.json(
    await pageOfKeys(
      c.var.controlDb,
      ownerOf(c),
      c.req.valid("query"),
      await listCursorSecret(gatewayConfig(c.env).identitySecret),
    ),
    200,
  );

export const getApiKey: Handler<"getApiKey"> = async (c) => {
  const { keyId } = c.req.valid("param");
  const apiKey = await getKey(c.var.controlDb, ownerOf(c), keyId);
  const activity = (await activityOf(c.var.controlDb, [apiKey.id])).get(apiKey.id) ?? [];
  return c.json({ apiKey, activity }, 200);
};

export const createApiKey: Handler<"createApiKey"> = async (c) => {
  const settings = c.req.valid("json");
  const reachable = settings.workspaceIds
    ? await reachableWorkspaces(gatewayCall(c), c.var.actor, new URL(c.req.url).origin)
    : [];
  return c.json(await createKey(c.var.controlDb, ownerOf(c), settings, reachable), 201);
};

export const revokeApiKey: Handler<"revokeApiKey"> = async (c) => {
  const { keyId } = c.req.valid("param");
  await revokeKey(c.var.controlDb, ownerOf(c), keyId);
  return c.json({ deletedId: keyId }, 200);
};

export const replaceApiKey: Handler<"replaceApiKey"> = async (c) => {
  const { keyId } = c.req.valid("param");
  return c.json(await replaceKey(c.var.controlDb, ownerOf(c), keyId), 201);
};
