import * as oauth from "oauth4webapi";
import { afterEach, describe, expect, it, vi } from "vitest";
import { revokedGrantsRefreshMs } from "../workers/gateway/src/pipeline/revoked-grants";
import { errorOf } from "./crm";
import {
  apiResource,
  authorizationServer,
  clientOptions,
  codeFlow,
  gatewayFetch,
  registerPublicClient,
  signedInUser,
} from "./oauth-client";

/**
 * Issue 12's "done when", as a third-party app lives it: registered through RFC 7591, a token from
 * the code flow with PKCE (oauth4webapi as the client), calls to the API with it, refresh rotation,
 * and a replayed old refresh token that revokes the grant, after which the API refuses the access
 * token too (within the isolate's refresh of revoked grants, DESIGN.md section 3: under 60 s).
 */

const api = (token: string, path: string) =>
  gatewayFetch()(`${apiResource}${path}`, { headers: { authorization: `Bearer ${token}` } });

describe("an app registered with DCR", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("gets a token through the code flow, calls the API, and loses it all when a rotated refresh token is replayed", async () => {
    const user = await signedInUser();
    const registered = await registerPublicClient();
    const { tokens } = await codeFlow(registered, user.cookie);

    const workspaces = await api(tokens.access_token, "/workspaces");
    expect(workspaces.status).toBe(200);
    expect(workspaces.headers.get("x-token-cost")).toBe("0");
    // The grant holds crm:records:read and tasks:read, not the metadata scope.
    const objects = await api(tokens.access_token, "/crm/objects?workspaceId=ws_000000000000000000000000");
    expect(objects.status).toBe(403);
    expect((await errorOf(objects)).code).toBe("insufficient_scope");

    const as = await authorizationServer();
    const refresh = async (token: string) =>
      oauth.processRefreshTokenResponse(
        as,
        registered.client,
        await oauth.refreshTokenGrantRequest(as, registered.client, registered.auth, token, clientOptions()),
      );
    const rotated = await refresh(tokens.refresh_token as string);
    expect((await api(rotated.access_token, "/workspaces")).status).toBe(200);

    const start = Date.now();
    vi.useFakeTimers({ toFake: ["Date"], now: start });
    await expect(refresh(tokens.refresh_token as string)).rejects.toMatchObject({ error: "invalid_grant" });
    await expect(refresh(rotated.refresh_token as string)).rejects.toMatchObject({ error: "invalid_grant" });

    vi.setSystemTime(start + revokedGrantsRefreshMs);
    for (const token of [tokens.access_token, rotated.access_token]) {
      const refused = await api(token, "/workspaces");
      expect(refused.status).toBe(401);
      expect((await errorOf(refused)).code).toBe("invalid_token");
    }
  });
});
