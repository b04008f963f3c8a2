import { ApiError, catalogue, removedRoutes } from "@crm/contracts";
import { internalRoutes, internalRoutesPrefix } from "./internal-routes";

const isParameter = (segment: string) => segment.startsWith("{");

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
  // Literal segments rank above parameters, so `/records/batch` is its own path, not a `{recordId}`.
  specificity: path
    .split("/")
    .map((segment) => (isParameter(segment) ? "0" : "1"))
    .join(""),
  pattern: new RegExp(`^${path.replace(/\{[^/}]+\}/g, "[^/]+")}$`),
}));

/** Methods the API serves on a path (relative to `/api/v1`), by its most specific template; empty when unknown. */
export function allowedMethods(path: string): string[] {
  const matching = routes.filter((route) => route.pattern.test(path));
  const specificity = matching
    .map((route) => route.specificity)
    .sort()
    .at(-1);
  return [...new Set(matching.filter((route) => route.specificity === specificity).map((route) => route.method))];
}

/** The 405 of a path the API knows, with the methods it serves there. */
export function methodNotAllowed(method: string, allowed: string[]): ApiError {
  return new ApiError("method_not_allowed", `${method} is not allowed here; use ${allowed.join(", ")}`, undefined, {
    allow: allowed.join(", "),
  });
}

/**
 * Catalogue paths that a more general template would otherwise serve for a method they do not offer
 * (`GET /records/batch` routed as `GET /records/{recordId}`): the router registers these ahead of the
 * catalogue's routes, to answer 405.
 */
export const shadowedRoutes = (() => {
  const methodsByPath = new Map<string, Set<string>>();
  const routingPaths = new Map<string, string>();
  for (const operation of catalogue) {
    const methods = methodsByPath.get(operation.path) ?? new Set<string>();
    methodsByPath.set(operation.path, methods.add(operation.method.toUpperCase()));
    routingPaths.set(operation.path, operation.routingPath);
  }
  const covers = (general: string[], specific: string[]) =>
    general.length === specific.length &&
    general.every((segment, i) => isParameter(segment) || (segment === specific[i] && !isParameter(specific[i] ?? "")));
  const shadowed: { method: string; path: string; routingPath: string }[] = [];
  for (const [path, methods] of methodsByPath) {
    const segments = path.split("/");
    for (const [general, generalMethods] of methodsByPath) {
      if (general === path || !covers(general.split("/"), segments)) continue;
      for (const method of generalMethods) {
        if (methods.has(method) || shadowed.some((route) => route.path === path && route.method === method)) continue;
        shadowed.push({ method, path, routingPath: routingPaths.get(path) as string });
      }
    }
  }
  return shadowed;
})();
