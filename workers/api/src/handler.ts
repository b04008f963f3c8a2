import type { Operation } from "@crm/contracts";
import type { RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "./env";

/** A regional handler for one catalogue operation, typed by the operation's zod-openapi route. */
export type OperationHandler<O extends Operation> = RouteHandler<O["route"], AppEnv>;
