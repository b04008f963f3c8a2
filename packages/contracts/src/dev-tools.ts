import type { MiddlewareHandler } from "hono";
import { ApiError } from "./errors";

/**
 * The one gate of development-only routes (the demo seed and the like), in both Workers: unless
 * `DEV_TOOLS` is "true" they answer 404 as an unknown path does. The routes are also left out of the
 * production bundles (each Worker's `local.ts` entry adds them), so this is the second line.
 */
export const devToolsOnly =
  <E extends { Bindings: { DEV_TOOLS?: string | undefined } }>(): MiddlewareHandler<E> =>
  async (c, next) => {
    if (c.env.DEV_TOOLS !== "true") throw new ApiError("not_found", "No such route");
    await next();
  };
