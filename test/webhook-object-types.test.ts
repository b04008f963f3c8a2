import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createObjectType, type ErrorBody, expectStatus, objectTypesOf } from "./crm";
import { createOrganization } from "./fixtures";
import { cast } from "./stack";

/** A subscription's `objectTypeIds` filter names object types of its own workspace only (contract fix 2 of issue 11). */

async function foreignObjectTypeIds() {
  const { dave, globex } = await cast();
  // Another organization in the same region (same D1) as Acme, and Globex in the eu region.
  const neighbour = await createOrganization({ region: "us", workspaceCount: 1 });
  const neighbourType = await createObjectType(neighbour.key, neighbour.workspaceIds[0] as string);
  const [globexType] = await objectTypesOf(dave.apiKey, globex.workspaces[0]?.id as string);
  return { neighbourType: neighbourType.id, globexType: globexType?.id as string, unknown: "obj_0000000000000000000000" };
}

describe("webhook objectTypeIds", () => {
  it("refuse object types of other organizations and unknown ids, on creation and update, with a detail per id", async () => {
    const { alice, sales, support } = await cast();
    const key = alice.apiKey;
    const [people] = await objectTypesOf(key, sales.id);
    const [supportType] = await objectTypesOf(key, support.id);
    const { neighbourType, globexType, unknown } = await foreignObjectTypeIds();
    const subscription = {
      workspaceId: sales.id,
      url: `${env.RECEIVER_URL}/hook-object-types`,
      eventTypes: ["record.created"],
    };
    const objectTypeIds = [people?.id, neighbourType, globexType, unknown, supportType?.id];
    const expectedPaths = ["body.objectTypeIds.1", "body.objectTypeIds.2", "body.objectTypeIds.3", "body.objectTypeIds.4"];

    const refused = await expectStatus<ErrorBody>(400, "/webhooks", {
      method: "POST",
      key,
      json: { ...subscription, objectTypeIds },
    });
    expect(refused.error.code).toBe("invalid_request");
    expect(refused.error.details?.map((detail) => detail.path)).toEqual(expectedPaths);

    const { webhook } = await expectStatus<{ webhook: { id: string; objectTypeIds: string[] } }>(201, "/webhooks", {
      method: "POST",
      key,
      json: { ...subscription, objectTypeIds: [people?.id] },
    });
    const refusedUpdate = await expectStatus<ErrorBody>(400, `/webhooks/${webhook.id}`, {
      method: "PATCH",
      key,
      json: { objectTypeIds },
    });
    expect(refusedUpdate.error.details?.map((detail) => detail.path)).toEqual(expectedPaths);
    const unchanged = await expectStatus<{ webhook: { objectTypeIds: string[] } }>(200, `/webhooks/${webhook.id}`, { key });
    expect(unchanged.webhook.objectTypeIds).toEqual([people?.id]);
  });
});
