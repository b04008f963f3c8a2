import { changelogEntries, type operations } from "@crm/contracts";
import type { RouteHandler } from "@hono/zod-openapi";
import type { HandlerEnv } from "../env";
import { answerCached, type CachedJson, cachedJson } from "./cached-json";

let changelog: Promise<CachedJson> | undefined;

/** `GET /changelog`: the change log's one source as JSON, built once per isolate. */
export const getChangelog: RouteHandler<(typeof operations.getChangelog)["route"], HandlerEnv<"none">> = async (c) => {
  changelog ??= cachedJson({ entries: changelogEntries() });
  return answerCached(c, await changelog);
};
