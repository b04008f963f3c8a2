import { ApiError, type Integration, type operations, publishedIntegrations } from "@crm/contracts";
import { paginateFixedList } from "@crm/db/pagination";
import type { RouteHandler } from "@hono/zod-openapi";
import { gatewayConfig } from "../config";
import type { HandlerEnv } from "../env";
import { listCursorSecret } from "../identity/identity-secret";
import { openApiDocumentFor } from "../openapi";
import { answerCached, type CachedJson, cachedJson } from "./cached-json";

interface PublishedCatalogue {
  integrations: Integration[];
  bySlug: Map<string, CachedJson>;
}

const catalogues = new Map<string, Promise<PublishedCatalogue>>();

/** Built once per isolate and origin (the docs links name the origin); the catalogue changes only with a deploy. */
function catalogueFor(origin: string): Promise<PublishedCatalogue> {
  let published = catalogues.get(origin);
  if (!published) {
    const integrations = publishedIntegrations(origin, openApiDocumentFor(origin));
    published = Promise.all(
      integrations.map(async (integration) => [integration.slug, await cachedJson({ integration })] as const),
    ).then((entries) => ({ integrations, bySlug: new Map(entries) }));
    catalogues.set(origin, published);
  }
  return published;
}

/** `GET /public/integrations/crm`: the published integrations, a page at a time. */
export const listIntegrations: RouteHandler<(typeof operations.listIntegrations)["route"], HandlerEnv<"none">> = async (c) => {
  const { limit, cursor } = c.req.valid("query");
  const { integrations } = await catalogueFor(new URL(c.req.url).origin);
  const page = await paginateFixedList(
    integrations,
    { scope: "public-integrations", limit, cursor, keyOf: (integration) => integration.slug },
    await listCursorSecret(gatewayConfig(c.env).identitySecret),
  );
  return answerCached(c, await cachedJson(page));
};

/** `GET /public/integrations/crm/{slug}`: one of them; 404 for a slug that is not published. */
export const getIntegration: RouteHandler<(typeof operations.getIntegration)["route"], HandlerEnv<"none">> = async (c) => {
  const { slug } = c.req.valid("param");
  const integration = (await catalogueFor(new URL(c.req.url).origin)).bySlug.get(slug);
  if (!integration) throw new ApiError("not_found", `No published integration "${slug}"`);
  return answerCached(c, integration);
};
