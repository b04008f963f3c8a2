// Webhook delivery: record creations fanned out to a verifying receiver, the outbox drain, and the
// write-to-receipt latency of one tenant beside another's hanging endpoint.
import { Webhook } from "standardwebhooks";
import { organizationDatabase } from "../scripts/lib/stack.mjs";
import { startBare } from "./bare.mjs";
import { startReceiver } from "./receiver.mjs";
import { objectTypeOf, percentile, runConcurrently as run, within } from "./report.mjs";

/**
 * Record creations fanned out to a receiver that verifies every signature, against the same
 * receiver fed by a bare Node loop that signs and posts: the delivery pipeline's cost in one run.
 */
export async function webhooksSection(stack, auth, { quick }) {
  const eventCount = quick ? 200 : 1000;
  const receiver = await startReceiver();
  const api = (path) => new URL(`/api/v1${path}`, stack.url);
  const json = { ...auth, "content-type": "application/json" };
  const { support, people, secret } = await supportSubscription(stack, auth, receiver);
  console.log(`\nWebhooks: ${eventCount} record creations fanned out to a receiver that verifies every signature\n`);

  const started = performance.now();
  const delivered = receiver.until(eventCount);
  await run(eventCount, 8, async (i) => {
    const response = await fetch(api("/records"), {
      method: "POST",
      headers: json,
      body: JSON.stringify({ objectTypeId: people.id, fields: { name: `Webhook bench ${i}` } }),
    });
    if (response.status !== 201) throw new Error(`creation answered ${response.status}`);
  });
  const created = performance.now();
  const endToEnd = eventCount / (((await delivered) - started) / 1000);

  const bareRate = await bareLoop(receiver, secret, eventCount);
  console.log(`creations: ${Math.round(eventCount / ((created - started) / 1000))}/s at c=8; signature failures at the receiver: ${receiver.failures}
end to end (first creation to last verified delivery): ${Math.round(endToEnd)} events/s
bare loop (sign + post from Node, c=8): ${Math.round(bareRate)} events/s
ratio end-to-end / bare: ${(endToEnd / bareRate).toFixed(2)}
`);
  await outboxDrain(stack, { receiver, secret, support, people }, quick ? 1000 : 5000);
  await receiver.close();
  await deliveryLatency(stack, quick ? 20 : 50);
}

/** A `record.created` subscription in Acme's Support workspace to the receiver, which verifies with its secret. */
async function supportSubscription(stack, auth, receiver) {
  const api = (path) => new URL(`/api/v1${path}`, stack.url);
  const support = stack.demo.organizations[0].workspaces[1].id;
  const people = await objectTypeOf(stack, auth, support, "people");
  const subscription = await fetch(api("/webhooks"), {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({ workspaceId: support, url: `${receiver.url}/hook`, eventTypes: ["record.created"] }),
  });
  const { secret } = await subscription.json();
  receiver.useSecret(secret);
  return { support, people, secret };
}

/** The outbox drain on its own (`--only=drain`): what `--only=webhooks` measures third, without the rest. */
export async function drainSection(stack, auth, { quick }) {
  const receiver = await startReceiver();
  const { support, people, secret } = await supportSubscription(stack, auth, receiver);
  await outboxDrain(stack, { receiver, secret, support, people }, quick ? 1000 : 5000);
  await receiver.close();
}

/**
 * The same loop on the Workers runtime (`bench/bare-worker.ts`, its own workerd process): the
 * platform's signing code and `fetch`, 8 at a time, to the same receiver, with nothing around them.
 */
async function bareWorkerLoop(receiver, secret, count) {
  const bare = await startBare();
  receiver.useSecret(secret);
  const started = performance.now();
  const delivered = receiver.until(count);
  const answer = await fetch(new URL("/sign-and-post", bare.url), {
    method: "POST",
    body: JSON.stringify({ url: `${receiver.url}/hook`, secret, count, concurrency: 8 }),
  });
  if (answer.status !== 200) throw new Error(`the bare sign-and-post loop answered ${answer.status}`);
  const rate = count / (((await delivered) - started) / 1000);
  await bare.mf.dispose();
  return rate;
}

/** Signs and posts `count` events from Node at 8 connections: the receiver's and signing's own ceiling. */
async function bareLoop(receiver, secret, count) {
  const signer = new Webhook(secret);
  receiver.useSecret(secret);
  const started = performance.now();
  const delivered = receiver.until(count);
  await run(count, 8, async (i) => {
    const id = `msg_bare_${i}`;
    const now = new Date();
    const payload = JSON.stringify({ type: "record.created", data: { id: `rec_${i}` } });
    const headers = {
      "content-type": "application/json",
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
      "webhook-signature": signer.sign(id, now, payload),
    };
    await fetch(`${receiver.url}/hook`, { method: "POST", headers, body: payload });
  });
  return count / (((await delivered) - started) / 1000);
}

/**
 * Delivery capacity apart from record creation (issue 18): 5 000 events already in the outbox,
 * written straight into the region's D1 in the shape the API writes, then drained by the next
 * write's dispatch through both Queues, the lanes, signing and POST to the verifying receiver.
 */
async function outboxDrain(stack, { receiver, secret, support, people }, drainCount) {
  const acme = stack.demo.organizations[0];
  const db = await organizationDatabase(stack, acme);
  const now = Date.now();
  const sequence = `with recursive seq(n) as (select 0 union all select n + 1 from seq where n < ${drainCount - 1})`;
  await db
    .prepare(
      `${sequence} insert into event_outbox (id, organization_id, workspace_id, object_type_id, type, payload, created_at, queued_at, claimed_at)
       select printf('evt_drain%08d', n), ?1, ?2, ?3, 'record.created',
         json_object('id', printf('evt_drain%08d', n), 'type', 'record.created', 'createdAt', ?4, 'organizationId', ?1, 'workspaceId', ?2,
           'objectTypeId', ?3, 'actor', json_object('type', 'user', 'id', ?5),
           'data', json_object('id', printf('rec_drain%08d', n), 'objectTypeId', ?3, 'fields', json_object('name', 'Drained ' || n), 'createdAt', ?4, 'updatedAt', ?4)),
         ?4, null, null from seq`,
    )
    .bind(acme.id, support, people.id, now, acme.users[0].id)
    .run();
  receiver.useSecret(secret);
  const started = performance.now();
  const drained = receiver.until(drainCount + 1);
  // Any write dispatches what the outbox holds: this creation's own event and the 5 000 before it.
  const trigger = await fetch(new URL("/api/v1/records", stack.url), {
    method: "POST",
    headers: { authorization: `Bearer ${acme.users[0].apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ objectTypeId: people.id, fields: { name: "Drain trigger" } }),
  });
  if (trigger.status !== 201) throw new Error(`the trigger creation answered ${trigger.status}`);
  const drainRate = (drainCount + 1) / (((await drained) - started) / 1000);
  // How long each POST took inside the Worker (fetch to answer): what bounds the drain on this runtime.
  const { results } = await db
    .prepare("select avg(duration_ms) as mean from webhook_attempts where event_id like 'evt_drain%' and status = 'delivered'")
    .all();
  const nodeRate = await bareLoop(receiver, secret, drainCount);
  const workerRate = await bareWorkerLoop(receiver, secret, drainCount);
  console.log(`Outbox drain: ${drainCount} events already in the outbox, through the Queues and lanes to the verifying receiver
drained: ${Math.round(drainRate)} events/s; signature failures: ${receiver.failures}
bare sign-and-post loops, c=8, ${drainCount} events: Workers runtime ${Math.round(workerRate)} events/s, Node ${Math.round(nodeRate)} events/s
ratio drain / bare: ${(drainRate / workerRate).toFixed(2)} (Workers runtime), ${(drainRate / nodeRate).toFixed(2)} (Node); target >= 0.5
mean POST duration seen by the lanes: ${results[0].mean.toFixed(1)} ms (8 in flight per subscription)
`);
}

/**
 * Write-to-receipt latency of one subscription in Initech (a tenant of the same region as Acme):
 * records created one at a time, each timed from the request to its verified delivery. Measured
 * idle, then while 100 deliveries hang in Acme's Sales (five subscriptions to a receiver that
 * accepts and never answers, 20 records), in the same run.
 */
async function deliveryLatency(stack, latencySamples) {
  const live = await liveEndpoint(stack);
  const api = (path) => new URL(`/api/v1${path}`, stack.url);
  const idle = await live.measure(latencySamples);

  // The hanging endpoint: accepts the connection and the request, never answers.
  const hanging = await import("node:http").then(({ createServer }) => createServer(() => {}));
  await new Promise((resolve) => hanging.listen(0, "127.0.0.1", resolve));
  const acme = stack.demo.organizations[0];
  const alice = { authorization: `Bearer ${acme.users[0].apiKey}`, "content-type": "application/json" };
  const sales = acme.workspaces[0].id;
  for (let i = 0; i < 5; i++)
    await fetch(api("/webhooks"), {
      method: "POST",
      headers: alice,
      body: JSON.stringify({
        workspaceId: sales,
        url: `http://127.0.0.1:${hanging.address().port}/hang`,
        eventTypes: ["record.created"],
      }),
    });
  const salesPeople = await objectTypeOf(stack, alice, sales, "people");
  for (let i = 0; i < 20; i++)
    await fetch(api("/records"), {
      method: "POST",
      headers: alice,
      body: JSON.stringify({ objectTypeId: salesPeople.id, fields: { name: `Hanging ${i}` } }),
    });
  const besideHanging = await live.measure(latencySamples);
  console.log(`Delivery latency, write to verified receipt, ${latencySamples} records one at a time in Initech
idle: p50 ${idle.p50.toFixed(1)} ms, p99 ${idle.p99.toFixed(1)} ms (target p50 <= 1000 ms)
with 100 deliveries hanging in Acme: p50 ${besideHanging.p50.toFixed(1)} ms, p99 ${besideHanging.p99.toFixed(1)} ms
p99 with hanging / p99 idle: ${(besideHanging.p99 / idle.p99).toFixed(2)} (target <= 2)
`);
  hanging.closeAllConnections();
  hanging.close();
  await live.close();
}

/** Write-to-receipt latency of a live subscription in Initech, one record at a time. */
export async function liveEndpoint(stack) {
  const initech = stack.demo.organizations[2];
  const main = initech.workspaces[0].id;
  const erin = { authorization: `Bearer ${initech.users[0].apiKey}`, "content-type": "application/json" };
  const api = (path) => new URL(`/api/v1${path}`, stack.url);
  const people = await objectTypeOf(stack, erin, main, "people");
  const receiver = await startReceiver();
  const subscription = await fetch(api("/webhooks"), {
    method: "POST",
    headers: erin,
    body: JSON.stringify({ workspaceId: main, url: `${receiver.url}/live`, eventTypes: ["record.created"] }),
  });
  receiver.useSecret((await subscription.json()).secret);
  // A delivery can arrive before its creation's response has been read: arrivals wait here for their writes.
  const arrivals = new Map();
  const arrival = (recordId) => {
    if (!arrivals.has(recordId)) arrivals.set(recordId, Promise.withResolvers());
    return arrivals.get(recordId);
  };
  receiver.onDelivery = (event, at) => arrival(event.data.id).resolve(at);
  return {
    async measure(samples) {
      const latencies = [];
      for (let i = 0; i < samples; i++) {
        const started = performance.now();
        const response = await fetch(api("/records"), {
          method: "POST",
          headers: erin,
          body: JSON.stringify({ objectTypeId: people.id, fields: { name: `Live ${i}` } }),
        });
        const { record } = await response.json();
        latencies.push((await within(arrival(record.id).promise, `the live delivery of ${record.id}`)) - started);
      }
      return { p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99) };
    },
    close: () => receiver.close(),
  };
}
