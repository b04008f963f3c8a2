import { ApiError, type operations, publishedIntegrations } from "@crm/contracts";
import type { RouteHandler } from "@hono/zod-openapi";
import type { HandlerEnv } from "../handlers";
import { openApiDocumentFor } from "../openapi";
import { answerCached, type CachedJson, cachedJson } from "./cached-json";

interface PublishedCatalogue {
  list: CachedJson;
  bySlug: Map<string, CachedJson>;
}

const catalogues = new Map<string, Promise<PublishedCatalogue>>();

/** Built once per isolate and origin (the docs links name the origin); the catalogue changes only with a deploy. */
function catalogueFor(origin: string): Promise<PublishedCatalogue> {
  let published = catalogues.get(origin);
  if (!published) {
    const integrations = publishedIntegrations(origin, openApiDocumentFor(origin));
    published = Promise.all([
      cachedJson({ data: integrations }),
      ...integrations.map(async (integration) => [integration.slug, await cachedJson({ integration })] as const),
    ]).then(([list, ...entries]) => ({ list, bySlug: new Map(entries) }));
    catalogues.set(origin, published);
  }
  return published;
}

/** `GET /public/integrations/crm`: every published integration. */
export const listIntegrations: RouteHandler<(typeof operations.listIntegrations)["route"], HandlerEnv<"none">> = async (c) =>
  answerCached(c, (await catalogueFor(new URL(c.req.url).origin)).list);

/** `GET /public/integrations/crm/{slug}`: one of them; 404 for a slug that is not published. */
export const getIntegration: RouteHandler<(typeof operations.getIntegration)["route"], HandlerEnv<"none">> = async (c) => {
  const { slug } = c.req.valid("param");
  const integration = (await catalogueFor(new URL(c.req.url).origin)).bySlug.get(slug);
  if (!integration) throw new ApiError("not_found", `No published integration "${slug}"`);
  return answerCached(c, integration);
};
