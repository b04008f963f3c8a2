import type { DeliveredEventType, EventType } from "@crm/contracts";

/** An event leaving the outbox. `payload` is the event as delivered, JSON. */
export interface OutboxEvent {
  eventId: string;
  workspaceId: string;
  objectTypeId: string | null;
  type: EventType;
  /** When the change happened (Unix ms); subscriptions made later do not receive it. */
  createdAt: number;
  payload: string;
}

/**
 * Events of one shard leaving the outbox together, as the events Queue carries them: one message
 * holds as many as fit in a Queue message, because a busy outbox would otherwise pay the Queue's
 * per-message work (and price) thousands of times a second.
 */
export interface EventsMessage {
  /** The shard of the events' organizations: their subscriptions and deliveries are there. */
  shard: number;
  events: OutboxEvent[];
}

/**
 * One delivery of an event to one subscription, as it travels through the deliveries Queue to the
 * subscription's lane (`WebhookEndpoint`) and as the lane keeps it until it ends; `attempt` counts from 1.
 */
export interface DeliveryMessage {
  /** The shard of the subscription's organization. */
  shard: number;
  deliveryId: string;
  webhookId: string;
  workspaceId: string;
  eventId: string;
  eventType: DeliveredEventType;
  payload: string;
  attempt: number;
  /** Unix ms before which the delivery must not leave (a slot of the burst limit; delays longer than a queue allows are hopped). */
  notBefore: number;
  /** Set once the burst limit gave the delivery a later slot: it has its token and is not counted again. */
  burstSlot?: boolean;
  /** A replay or redelivery: sent once more even if the lane still holds the delivery's last send. */
  again?: boolean;
  /**
   * The replay that asked for it (its id): the lane sends it only with a spare token of the
   * workspace's burst limit, after the live deliveries that are due (`WebhookBurst.spare`).
   */
  replay?: string;
}

/**
 * A busy lane's call to itself through the deliveries Queue (`WebhookEndpoint`): while it has
 * deliveries out it sends one a second, delayed a second, so that a lane cut by a restart is woken
 * by the next one's arrival within about a second, not by the runtime's retry of its cut alarm (2 s,
 * doubling while retries are cut too). At a live lane it only runs the pump; an idle lane sends none.
 */
export interface LaneWake {
  shard: number;
  /** The subscription whose lane to wake. */
  wakeLane: string;
}

/** What the deliveries Queue carries. */
export type DeliveriesQueueMessage = DeliveryMessage | LaneWake;

export const isLaneWake = (message: DeliveriesQueueMessage): message is LaneWake => "wakeLane" in message;
