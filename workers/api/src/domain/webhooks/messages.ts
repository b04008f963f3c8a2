import type { EventType } from "@crm/contracts";

/** An event leaving the outbox. `payload` is the event as delivered, JSON. */
export interface EventMessage {
  /** The shard of the event's organization: its subscriptions and deliveries are there. */
  shard: number;
  eventId: string;
  workspaceId: string;
  objectTypeId: string | null;
  type: EventType;
  /** When the change happened (Unix ms); subscriptions made later do not receive it. */
  createdAt: number;
  payload: string;
}

/** One delivery of an event to one subscription; `attempt` counts from 1. */
export interface DeliveryMessage {
  /** The shard of the subscription's organization. */
  shard: number;
  deliveryId: string;
  webhookId: string;
  workspaceId: string;
  eventId: string;
  eventType: EventType;
  payload: string;
  attempt: number;
  /** Unix ms before which the attempt must not run (delays longer than a queue allows are hopped). */
  notBefore: number;
}
