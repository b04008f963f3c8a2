import { env } from "cloudflare:test";
import { eventually } from "./stack";

/**
 * The loopback webhook receiver of test/node/receiver.ts, as tests use it: a path of its own per
 * subscription, what arrived there, and how it answers next.
 */

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

/** A receiver path no other test uses (a `/hang-` prefix makes an endpoint that never answers). */
export const receiverPath = (prefix = "hook") => `/${prefix}-${crypto.randomUUID().slice(0, 8)}`;

/** The URL a subscription names to be delivered to `path`. */
export const receiverUrl = (path: string) => `${env.RECEIVER_URL}${path}`;

/** Every request `path` received, in order of arrival. */
export const received = async (path: string) =>
  (await (await fetch(`${env.RECEIVER_URL}/__requests${path}`)).json()) as Received[];

/** How many requests `path` received and how many distinct `webhook-id`s among them (for thousands). */
export const summary = async (path: string) =>
  (await (await fetch(`${env.RECEIVER_URL}/__summary${path}`)).json()) as { requests: number; webhookIds: number };

/** The answers `path` gives its next requests, in order (then 200). */
export const program = (path: string, responses: { status: number; headers?: Record<string, string>; delayMs?: number }[]) =>
  fetch(`${env.RECEIVER_URL}/__program${path}`, { method: "POST", body: JSON.stringify(responses) });

/** The first request `path` receives, once it arrives. */
export async function firstReceived(path: string): Promise<Received> {
  const [first] = await eventually(
    () => received(path),
    (requests) => requests.length > 0,
  );
  if (!first) throw new Error(`nothing arrived at ${path}`);
  return first;
}

/**
 * What `path` received before a marker, for "nothing else arrived" checks without a sleep: `send`
 * makes an event the subscription receives, after the events under test, so once the marker is in
 * (recognized by `isMarker`), whatever those events would have delivered has been fanned out and
 * sent. Returns the other requests, in order of arrival.
 */
export async function receivedBefore(
  path: string,
  marker: { send: () => Promise<unknown>; isMarker: (request: Received) => boolean },
) {
  await marker.send();
  const all = await eventually(
    () => received(path),
    (requests) => requests.some(marker.isMarker),
    { timeoutMs: 20_000 },
  );
  return all.filter((request) => !marker.isMarker(request));
}
