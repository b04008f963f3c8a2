import { scopeDescriptions } from "@crm/contracts";
import type { Context } from "hono";
import { checkRequest, verifyClient } from "../oauth/authorization-request";
import { mcpResource, oauthPaths } from "../oauth/resources";
import type { ConsoleEnv } from "./console-env";

/**
 * When sign-in leads back to an application's authorization request, the page says who is asking
 * and for what, read from that request exactly as the authorization endpoint reads it. A request
 * the endpoint would refuse names nothing here: the endpoint shows its own error after sign-in.
 */
export async function authorizationRequestOf(c: Context<ConsoleEnv>, returnTo: string) {
  const origin = new URL(c.req.url).origin;
  const target = new URL(returnTo, origin);
  if (target.pathname !== oauthPaths.authorize) return null;
  try {
    const verified = await verifyClient(c.var.controlDb, target.searchParams);
    const request = checkRequest(origin, verified);
    const { client } = verified;
    return {
      clientName: client.name,
      selfRegistered: client.registeredVia === "dynamic",
      resourceName: request.resource === mcpResource(origin) ? "MCP server" : "REST API",
      scopes: request.scopes,
    };
  } catch {
    return null;
  }
}

type Asking = NonNullable<Awaited<ReturnType<typeof authorizationRequestOf>>>;

export const AuthorizationRequestSummary = ({ asking }: { asking: Asking }) => (
  <section class="asking" aria-labelledby="asking-title">
    <h2 id="asking-title">{asking.clientName} asks for access</h2>
    <p>Sign in to review its request to use the {asking.resourceName} as you. It asks to:</p>
    <ul>
      {asking.scopes.map((scope) => (
        <li>{scopeDescriptions[scope]}</li>
      ))}
    </ul>
    {asking.selfRegistered && <p class="muted">This application registered itself: its name is not verified.</p>}
    <p class="muted">Nothing is allowed until you choose Allow on the next page.</p>
  </section>
);
