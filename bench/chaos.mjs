// The outbox drain with lanes restarted every 200 ms, against the undisturbed drain in the same run
// (issue 24): events written straight into the outbox, drained through the Queues and the
// subscription's lane to a verifying receiver, once undisturbed and once while every Durable Object
// of the runtime, the lane first, is restarted every 200 ms (`abortAllDurableObjects` of
// `workerd:unsafe`, what a deploy does: work in flight is cut). A graceful eviction
// (`unsafeEvictDurableObject`) of a busy lane waits 30 s for its references and evicts nothing.
// Prints the events lost, the duplicates (and whether any came under another webhook-id) and the ratio.
//   npm run bench -- --only=chaos [--quick]
import { organizationDatabase } from "../scripts/lib/stack.mjs";
import { startReceiver } from "./receiver.mjs";

const restartEveryMs = 200;

/** A Worker beside the stack that restarts every Durable Object of the runtime when asked. */
export const restarterWorker = {
  name: "bench-restarter",
  modules: true,
  compatibilityDate: "2026-11-01",
  compatibilityFlags: ["unsafe_module"],
  script: `import workerdUnsafe from "workerd:unsafe";
export default { async fetch() { await workerdUnsafe.abortAllDurableObjects(); return new Response(null, { status: 204 }); } };`,
};
/** A drain idle this long (nothing arrived) is counted as an idle gap: the runtime's alarm retry is 2 s and more. */
const idleGapMs = 1_000;
/** How long a drain may take before what has not arrived counts as lost. */
const guardMs = 180_000;

/** A `record.created` subscription of Acme's Support workspace to the receiver; its id names its lane. */
async function subscription(stack, auth, receiver) {
  const api = (path) => new URL(`/api/v1${path}`, stack.url);
  const support = stack.demo.organizations[0].workspaces[1].id;
  const { objects } = await (await fetch(api(`/crm/objects?workspaceId=${support}`), { headers: auth })).json();
  const people = objects.find((object) => object.slug === "people");
  const created = await fetch(api("/webhooks"), {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({ workspaceId: support, url: `${receiver.url}/chaos`, eventTypes: ["record.created"] }),
  });
  const { webhook, secret } = await created.json();
  return { support, people, secret, webhookId: webhook.id };
}

/**
 * One drain of `count` events (ids starting with `prefix`), started by a record creation whose
 * dispatch takes the whole outbox; `during` runs while it drains and is stopped after. Answers the
 * rate, what was lost, the duplicates, and how many events came under more than one webhook-id.
 */
async function drain(stack, { receiver, secret, support, people }, { count, prefix, during }) {
  const acme = stack.demo.organizations[0];
  const db = await organizationDatabase(stack, acme);
  const now = Date.now();
  await db
    .prepare(
      `with recursive seq(n) as (select 0 union all select n + 1 from seq where n < ${count - 1})
       insert into event_outbox (id, organization_id, workspace_id, object_type_id, type, payload, created_at, queued_at, claimed_at)
       select ?6 || printf('%08d', n), ?1, ?2, ?3, 'record.created',
         json_object('id', ?6 || printf('%08d', n), 'type', 'record.created', 'createdAt', ?4, 'organizationId', ?1, 'workspaceId', ?2,
           'objectTypeId', ?3, 'actor', json_object('type', 'user', 'id', ?5),
           'data', json_object('id', 'rec_' || ?6 || n, 'objectTypeId', ?3, 'fields', json_object('name', 'Chaos ' || n), 'createdAt', ?4, 'updatedAt', ?4)),
         ?4, null, null from seq`,
    )
    .bind(acme.id, support, people.id, now, acme.users[0].id, prefix)
    .run();
  receiver.useSecret(secret);
  const webhookIds = new Map();
  let deliveries = 0;
  const arrivals = [];
  receiver.onDelivery = (event, at, webhookId) => {
    deliveries++;
    arrivals.push(at);
    const ids = webhookIds.get(event.id) ?? new Set();
    ids.add(webhookId);
    webhookIds.set(event.id, ids);
  };
  const expected = count + 1;
  const started = performance.now();
  const stop = during?.();
  const trigger = await fetch(new URL("/api/v1/records", stack.url), {
    method: "POST",
    headers: { authorization: `Bearer ${acme.users[0].apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ objectTypeId: people.id, fields: { name: `Chaos trigger ${prefix}` } }),
  });
  if (trigger.status !== 201) throw new Error(`the trigger creation answered ${trigger.status}`);
  const finished = await Promise.race([
    receiver.until(expected),
    new Promise((resolve) => setTimeout(() => resolve(null), guardMs)),
  ]);
  await stop?.();
  const arrived = finished ?? performance.now();
  // Stretches of the drain in which nothing arrived for over a second: a lane idle after a restart.
  const idle = [started, ...arrivals].flatMap((at, i, all) => (i > 0 && at - all[i - 1] > idleGapMs ? [at - all[i - 1]] : []));
  return {
    idleGaps: idle.length,
    idleMs: idle.reduce((sum, gap) => sum + gap, 0),
    rate: webhookIds.size / ((arrived - started) / 1000),
    lost: expected - webhookIds.size,
    duplicates: deliveries - webhookIds.size,
    underAnotherId: [...webhookIds.values()].filter((ids) => ids.size > 1).length,
    signatureFailures: receiver.failures,
  };
}

export async function chaosSection(stack, auth, { quick }) {
  const count = quick ? 1_000 : 5_000;
  const receiver = await startReceiver();
  const place = await subscription(stack, auth, receiver);
  const run = Date.now().toString(36);
  const undisturbed = await drain(stack, { receiver, ...place }, { count, prefix: `evt_calm${run}` });
  const restarter = await stack.mf.getWorker(restarterWorker.name);
  let restarts = 0;
  const chaos = await drain(
    stack,
    { receiver, ...place },
    {
      count,
      prefix: `evt_chaos${run}`,
      during: () => {
        const timer = setInterval(() => {
          restarter.fetch("http://restarter/").then(
            () => restarts++,
            () => {},
          );
        }, restartEveryMs);
        return () => clearInterval(timer);
      },
    },
  );
  await receiver.close();
  console.log(`Chaos drain: ${count} events already in the outbox, through the Queues and the lane to the verifying receiver
undisturbed: ${Math.round(undisturbed.rate)} events/s (lost ${undisturbed.lost}, duplicates ${undisturbed.duplicates}; idle over 1 s: ${undisturbed.idleGaps} times, ${(undisturbed.idleMs / 1000).toFixed(1)} s)
objects restarted every ${restartEveryMs} ms (${restarts} restarts): ${Math.round(chaos.rate)} events/s (idle over 1 s: ${chaos.idleGaps} times, ${(chaos.idleMs / 1000).toFixed(1)} s)
lost: ${chaos.lost}
duplicates: ${chaos.duplicates} (events under more than one webhook-id: ${chaos.underAnotherId}); signature failures: ${chaos.signatureFailures}
ratio chaos / undisturbed: ${(chaos.rate / undisturbed.rate).toFixed(2)}; target >= 0.5, 0 lost, duplicates only under the same webhook-id
`);
}
