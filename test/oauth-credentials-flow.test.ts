import * as oauth from "oauth4webapi";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createSession } from "../workers/gateway/src/identity/sessions";
import { revokedGrantsRefreshMs } from "../workers/gateway/src/pipeline/revoked-grants";
import { type ErrorBody, objectTypesOf, unique } from "./crm";
import {
  authorizationServer,
  authorizationUrl,
  authorizeInBrowser,
  clientOptions,
  codeFlow,
  createConfidentialApp,
  db,
  exchangeCode,
} from "./oauth-client";
import { call, cast } from "./stack";

/**
 * Tokens as the demo's OAuth clients get them from the token endpoint (driven by `oauth4webapi`),
 * spent on the REST API: the seeded web app with client credentials, the seeded public client
 * through the code flow with PKCE for a signed-in user.
 */

interface Workspace {
  id: string;
  role: string | null;
  isInheritedAccess: boolean;
}

const workspaces = async (token: string) => {
  const response = await call("/workspaces", { key: token });
  return { response, body: (await response.json()) as { data: Workspace[] } & ErrorBody };
};

/** A client-credentials token of `app` (the demo web app unless a test brings its own). */
async function appToken(app?: { client: oauth.Client; auth: oauth.ClientAuth }) {
  const { webApp } = await cast();
  const as = await authorizationServer();
  const client = app?.client ?? { client_id: webApp.clientId };
  const auth = app?.auth ?? oauth.ClientSecretBasic(webApp.clientSecret);
  const response = await oauth.clientCredentialsGrantRequest(as, client, auth, {}, clientOptions());
  const tokens = await oauth.processClientCredentialsResponse(as, client, response);
  return { accessToken: tokens.access_token, client, auth, as };
}

describe("tokens from the token endpoint on API routes", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("the demo web app's client-credentials token acts as the app in Acme, with no role", async () => {
    const { acme, sales, webApp } = await cast();
    const { accessToken } = await appToken();
    const { response, body } = await workspaces(accessToken);
    expect(response.status).toBe(200);
    expect(body.data.map((workspace) => workspace.id).sort()).toEqual(acme.workspaces.map(({ id }) => id).sort());
    expect(body.data.every((workspace) => workspace.role === null && workspace.isInheritedAccess)).toBe(true);

    const [people] = await objectTypesOf(accessToken, sales.id);
    const created = await call("/records", {
      method: "POST",
      key: accessToken,
      json: { objectTypeId: people?.id, fields: { name: `App person ${unique()}` } },
    });
    expect(created.status).toBe(201);
    expect(((await created.json()) as { record: { createdBy: string } }).record.createdBy).toBe(webApp.clientId);
  });

  it("a token revoked at the revocation endpoint is refused within the isolate's refresh of revoked grants", async () => {
    // An app of its own: revoking the demo app's grant would pull it from under other tests.
    const { acme } = await cast();
    const app = await createConfidentialApp({ installations: [{ organizationId: acme.id, scopes: ["crm:records:read"] }] });
    const { accessToken, client, auth, as } = await appToken(app);
    const start = Date.now();
    vi.useFakeTimers({ toFake: ["Date"], now: start });
    expect((await workspaces(accessToken)).response.status).toBe(200);

    const revoked = await oauth.revocationRequest(as, client, auth, accessToken, clientOptions());
    await oauth.processRevocationResponse(revoked);

    vi.setSystemTime(start + revokedGrantsRefreshMs);
    const { response, body } = await workspaces(accessToken);
    expect(response.status).toBe(401);
    expect(body.error.code).toBe("invalid_token");
  });

  it("the public client's code-flow token acts as the signed-in user, with her role", async () => {
    const { alice, acme, publicClient } = await cast();
    const { token } = await createSession(db(), { userId: alice.id, organizationId: acme.id });
    const { tokens } = await codeFlow(
      { client: { client_id: publicClient.clientId }, redirectUri: publicClient.redirectUri, auth: oauth.None() },
      `__Host-session=${token}`,
    );
    const { response, body } = await workspaces(tokens.access_token);
    expect(response.status).toBe(200);
    expect(body.data.map((workspace) => [workspace.id, workspace.role])).toEqual(acme.workspaces.map(({ id }) => [id, "owner"]));
    // The flow asked for records and tasks only: the rest of the API stays closed to it.
    const refused = await call(`/webhooks?workspaceId=${acme.workspaces[0]?.id}`, { key: tokens.access_token });
    expect(refused.status).toBe(403);
  });

  it("a code-flow token of erin for all her organizations needs X-Service-Organization-Id on each request", async () => {
    const { erin, initech, globex, publicClient } = await cast();
    const { token } = await createSession(db(), { userId: erin.id, organizationId: null });
    const cookie = `__Host-session=${token}`;
    const client = { client_id: publicClient.clientId };
    const request = await authorizationUrl(client, publicClient.redirectUri);
    // "All my organizations" on the consent page: the token carries no `org`.
    const callback = await authorizeInBrowser(request.url, cookie, { organization: "" });
    const registered = { client, redirectUri: publicClient.redirectUri, auth: oauth.None() };
    const { access_token: accessToken } = await exchangeCode(registered, request, callback);

    const required = await workspaces(accessToken);
    expect(required.response.status).toBe(400);
    expect(required.body.error.code).toBe("organization_required");
    const listed = required.body.error.details as unknown as { id: string }[];
    expect(listed.map(({ id }) => id).sort()).toEqual([initech.id, globex.id].sort());
    for (const organization of [initech, globex]) {
      const selected = await call("/workspaces", { key: accessToken, headers: { "x-service-organization-id": organization.id } });
      expect(((await selected.json()) as { data: Workspace[] }).data.map(({ id }) => id)).toEqual(
        organization.workspaces.map(({ id }) => id),
      );
    }
  });
});
