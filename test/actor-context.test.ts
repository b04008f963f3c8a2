import { type ContextActor, type ContextRequest, signActorContext, signActorContextOf, verifyToken } from "@crm/contracts";
import { expect, it } from "vitest";

const secret = "a-region-secret";

const actor: ContextActor = {
  organizationId: "org_1",
  region: "us",
  shard: 2,
  actor: { type: "user", id: "usr_1" },
  credential: { type: "api_key", id: "key_1" },
  scopes: ["crm:records:read", "tasks:read"],
  workspaceIds: ["ws_1", "ws_2"],
  organizationRole: "member",
};

const request = (requestId: string, target: string): ContextRequest => ({
  requestId,
  operationId: "getRecord",
  method: "GET",
  path: "/records/{recordId}",
  target,
  surface: "api",
  issuedAt: 1_800_000_000_000,
});

it("signs an actor's requests exactly as the whole context is signed, its part serialized once", async () => {
  // The same actor object for two requests: the second reuses the actor's JSON made for the first.
  for (const each of [request("req_1", "/api/v1/records/rec_1"), request("req_2", "/api/v1/records/rec_2?x=1")]) {
    const token = await signActorContextOf(actor, each, secret);
    expect(token).toBe(await signActorContext({ ...actor, ...each }, secret));
    expect(await verifyToken(token, secret)).toEqual({ ...actor, ...each });
  }
});
