import { catalogue, removedRoutes } from "@crm/contracts";
import { internalRoutes, internalRoutesPrefix } from "./internal-routes";

/**
 * Path templates of the catalogue, the removed routes and the internal ones as patterns:
 * `/crm/objects/{objectTypeId}` matches one segment per parameter. Matched as strictly as the router
 * matches (no trailing slash), so that a path the router does not serve for any method is 404, never
 * a 405 that names the very method used.
 */
const routes = [
  ...catalogue.map((operation) => ({ method: operation.method.toUpperCase(), path: operation.path as string })),
  ...removedRoutes,
  ...internalRoutes.routes.map(({ method, path }) => ({ method, path: `${internalRoutesPrefix}${path}` })),
].map(({ method, path }) => ({
  method,
  pattern: new RegExp(`^${path.replace(/\{[^/}]+\}/g, "[^/]+")}$`),
}));

/** Methods the API serves on a path (relative to `/api/v1`); empty when the path is unknown. */
export function allowedMethods(path: string): string[] {
  const methods = routes.filter((route) => route.pattern.test(path)).map((route) => route.method);
  return [...new Set(methods)];
}
