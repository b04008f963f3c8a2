import { env } from "cloudflare:test";
import { createObjectType, expectStatus, unique } from "./crm";
import { createOrganization } from "./fixtures";
import { receiverUrl } from "./receiver";

/**
 * Helpers for tests of webhook lanes: a workspace of its own with subscriptions to the loopback
 * receiver (test/receiver.ts), and what the API shows of their deliveries.
 */

export interface EndpointState {
  status: string;
  consecutiveFailures: number;
  lastFailureAt: number | null;
  lastFailure: string | null;
  nextAttemptAt: number | null;
}

export interface Deliveries {
  data: {
    deliveryId: string;
    eventId: string;
    attempt: number;
    status: string;
    error: string | null;
    nextAttemptAt: number | null;
    createdAt: number;
  }[];
  statistics: { delivered: number; failed: number; pending: number; rateLimited: number };
}

/** A fresh organization's workspace (us, shard 1 unless told) with an object type, and what a test does there. */
export async function workspace(options: { shard?: number } = {}) {
  const organization = await createOrganization({ workspaceCount: 1, ...options });
  const workspaceId = organization.workspaceIds[0] as string;
  const objectType = await createObjectType(organization.key, workspaceId);
  /** A subscription to the receiver at `path`: its id, and the secret that signs its deliveries. */
  const subscribe = async (path: string, eventTypes = ["record.created"]) => {
    const { webhook, secret } = await expectStatus<{ webhook: { id: string }; secret: string }>(201, "/webhooks", {
      method: "POST",
      key: organization.key,
      json: { workspaceId, url: receiverUrl(path), eventTypes },
    });
    return { id: webhook.id, secret };
  };
  const createRecord = () =>
    expectStatus<{ record: { id: string } }>(201, "/records", {
      method: "POST",
      key: organization.key,
      json: { objectTypeId: objectType.id, fields: { name: `Record ${unique()}` } },
    });
  const deliveries = (webhookId: string) =>
    expectStatus<Deliveries>(200, `/webhooks/${webhookId}/deliveries?limit=100`, { key: organization.key });
  const endpointState = async (webhookId: string) =>
    (await expectStatus<{ webhook: { endpointState: EndpointState } }>(200, `/webhooks/${webhookId}`, { key: organization.key }))
      .webhook.endpointState;
  return { ...organization, workspaceId, objectType, subscribe, createRecord, deliveries, endpointState };
}

/** The lane (`WebhookEndpoint`) of a us subscription, as the regional Worker addresses it. */
export const laneOf = (webhookId: string) => env.WEBHOOK_ENDPOINTS_US.get(env.WEBHOOK_ENDPOINTS_US.idFromName(webhookId));
