// The events feed and webhook replay (issue 28), against the local stack:
//   npm run bench -- --only=events [--quick] [--events-million]
// (1) `GET /events` (a page of 100) with 100 000 events in the shard, and 1 000 000 with
//     `--events-million`, beside `GET /records/{id}` in alternating rounds: the page's p50 against
//     the record's (target <= 2x), and how it changes from the smaller shard to the larger (flat).
// (2) A replay of 10 000 events against the outbox drain of the same events in the same run (target
//     >= 0.5x), with a live endpoint of another organization measured beside it (p99 <= 2x idle).
//     `--events-replay=N` runs (2) alone with N events; with `--inspector-port=P` it also writes CPU
//     profiles of the region's isolate during the drain and during the replay (.wrangler/profiles/).
import { mkdir } from "node:fs/promises";
import { organizationDatabase } from "../scripts/lib/stack.mjs";
import { describeProfile, startProfile } from "./profile.mjs";
import { startReceiver } from "./receiver.mjs";
import { header, objectTypeOf, row, within } from "./report.mjs";
import { alternatingRounds } from "./rounds.mjs";
import { liveEndpoint } from "./webhooks.mjs";

/** Rows per insert: one recursive insert of a million rows ends the local runtime's connection to D1. */
const seedChunk = 50_000;

/**
 * Events written straight into the shard's outbox in the shape the API writes (already queued, as
 * after their delivery), `from` to `to` - 1, spread over the last day, in `workspaceId`.
 */
async function seedEvents(db, { organizationId, workspaceId, objectTypeId, userId, from, to, prefix, queued = true }) {
  const dayAgo = Date.now() - 24 * 60 * 60 * 1000;
  const spacing = Math.max(1, Math.floor((24 * 60 * 60 * 1000) / Math.max(to, 1)));
  for (let first = from; first < to; first += seedChunk) {
    const last = Math.min(to, first + seedChunk) - 1;
    await db
      .prepare(
        `with recursive seq(n) as (select ?6 union all select n + 1 from seq where n < ?7)
         insert into event_outbox (id, organization_id, workspace_id, object_type_id, type, payload, created_at, queued_at, claimed_at)
         select printf('evt_${prefix}%09d', n), ?1, ?2, ?3, 'record.created',
           json_object('id', printf('evt_${prefix}%09d', n), 'type', 'record.created', 'createdAt', ?4 + n * ?8, 'organizationId', ?1,
             'workspaceId', ?2, 'objectTypeId', ?3, 'actor', json_object('type', 'user', 'id', ?5),
             'data', json_object('id', printf('rec_${prefix}%09d', n), 'objectTypeId', ?3, 'fields', json_object('name', 'Seeded ' || n),
               'createdAt', ?4 + n * ?8, 'updatedAt', ?4 + n * ?8)),
           ?4 + n * ?8, ${queued ? "?4 + n * ?8" : "null"}, ${queued ? "?4 + n * ?8" : "null"} from seq`,
      )
      .bind(organizationId, workspaceId, objectTypeId, dayAgo, userId, first, last, spacing)
      .run();
  }
}

/** (1) The feed's page against a record read, at each size of the shard's outbox. */
async function feedAtScale(stack, { durationMs, sizes }) {
  const acme = stack.demo.organizations[0];
  const auth = { authorization: `Bearer ${acme.users[0].apiKey}` };
  const api = (path) => new URL(`/api/v1${path}`, stack.url);
  const sales = acme.workspaces[0].id;
  const people = await objectTypeOf(stack, auth, sales, "people");
  const created = await fetch(api("/records"), {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({ objectTypeId: people.id, fields: { name: "Feed bench" } }),
  });
  const { record } = await created.json();
  const db = await organizationDatabase(stack, acme);
  const figures = [];
  let seeded = 0;
  console.log(`\nEvents feed: GET /events (limit=100) in Acme's Sales vs GET /records/{id}, ${durationMs / 1000} s per size\n`);
  console.log(header);
  for (const size of sizes) {
    const started = Date.now();
    await seedEvents(db, {
      organizationId: acme.id,
      workspaceId: sales,
      objectTypeId: people.id,
      userId: acme.users[0].id,
      from: seeded,
      to: size,
      prefix: "feed",
    });
    seeded = size;
    // From the middle of the shard's events, as a client catching up does (and the first page, from 30 days back).
    const middle = `evt_feed${String(Math.floor(size / 2)).padStart(9, "0")}`;
    const rounds = await alternatingRounds(
      {
        page: { url: api(`/events?workspaceId=${sales}&limit=100&afterEventId=${middle}`).href, headers: auth },
        first: { url: api(`/events?workspaceId=${sales}&limit=100`).href, headers: auth },
        record: { url: api(`/records/${record.id}`).href, headers: auth },
      },
      { connections: 1, durationMs },
    );
    const page = rounds.figure("page");
    console.log(row(`GET /events page of 100 after an event, ${size} events (seeded ${Date.now() - started} ms)`, page));
    console.log(row(`GET /events first page of 100, ${size} events`, rounds.figure("first")));
    console.log(row(`GET /records/{id}, ${size} events`, rounds.figure("record")));
    figures.push({ size, page, ratio: rounds.ratio("page", "record", "p50") });
  }
  console.log("");
  for (const { size, ratio } of figures)
    console.log(`events page p50 / record p50 at ${size} events: ${ratio.toFixed(2)} (target <= 2)`);
  if (figures.length > 1) {
    const [smaller, larger] = [figures[0], figures.at(-1)];
    console.log(
      `events page p50 at ${larger.size} / at ${smaller.size}: ${(larger.page.p50 / smaller.page.p50).toFixed(2)} (target: flat, about 1)`,
    );
  }
}

/** (2) The outbox drain of `count` events, then a replay of the same events, beside a live endpoint. */
async function replayAgainstDrain(stack, { count, samples, inspectorPort }) {
  const acme = stack.demo.organizations[0];
  const auth = { authorization: `Bearer ${acme.users[0].apiKey}`, "content-type": "application/json" };
  const api = (path) => new URL(`/api/v1${path}`, stack.url);
  const support = acme.workspaces[1].id;
  const people = await objectTypeOf(stack, auth, support, "people");
  const receiver = await startReceiver();
  const created = await fetch(api("/webhooks"), {
    method: "POST",
    headers: auth,
    body: JSON.stringify({ workspaceId: support, url: `${receiver.url}/replayed`, eventTypes: ["record.created"] }),
  });
  const { webhook, secret } = await created.json();
  const since = Date.now();
  const db = await organizationDatabase(stack, acme);
  await seedEvents(db, {
    organizationId: acme.id,
    workspaceId: support,
    objectTypeId: people.id,
    userId: acme.users[0].id,
    from: 0,
    to: count,
    prefix: "replay",
    queued: false,
  });
  // Written now, in the subscription's lifetime: the seed spreads events over the last day.
  await db
    .prepare("update event_outbox set created_at = ?1 where id like 'evt_replay%'")
    .bind(since + 1)
    .run();
  const live = await liveEndpoint(stack);
  const idle = await live.measure(samples);

  const profiles = [];
  const profiled = async (label) => {
    if (!inspectorPort) return { stop: async () => {} };
    const profile = await startProfile(inspectorPort, `crm-api-${acme.region}`);
    return {
      stop: async () => {
        await mkdir(".wrangler/profiles", { recursive: true });
        profiles.push(describeProfile(label, await profile.stop(`.wrangler/profiles/events-${label}.cpuprofile`)));
      },
    };
  };

  receiver.useSecret(secret);
  let profile = await profiled("drain");
  let started = performance.now();
  const drained = receiver.until(count + 1);
  // Any write dispatches what the outbox holds: this creation's own event and those before it.
  await fetch(api("/records"), {
    method: "POST",
    headers: auth,
    body: JSON.stringify({ objectTypeId: people.id, fields: { name: "Drain trigger" } }),
  });
  const drainRate = (count + 1) / (((await within(drained, `the drain of ${count + 1} events`)) - started) / 1000);
  await profile.stop();

  receiver.useSecret(secret);
  profile = await profiled("replay");
  started = performance.now();
  const replay = await fetch(api(`/webhooks/${webhook.id}/replay`), {
    method: "POST",
    headers: auth,
    body: JSON.stringify({ sinceMs: since }),
  });
  const { queued } = await replay.json();
  const answeredMs = performance.now() - started;
  const replayed = receiver.until(queued);
  const beside = await live.measure(samples);
  const replayRate = queued / (((await within(replayed, `the replay of ${queued} events`)) - started) / 1000);
  await profile.stop();
  for (const summary of profiles) console.log(`${summary}\n`);
  console.log(`
Replay: ${queued} events of Acme's Support replayed to one subscription, after the outbox drain of the same events
outbox drain: ${Math.round(drainRate)} events/s; replay: ${Math.round(replayRate)} events/s (request answered in ${Math.round(answeredMs)} ms); signature failures: ${receiver.failures}
replay / drain: ${(replayRate / drainRate).toFixed(2)} (target >= 0.5)
live endpoint in Initech, ${samples} records one at a time: idle p50 ${idle.p50.toFixed(1)} ms, p99 ${idle.p99.toFixed(1)} ms; during the replay p50 ${beside.p50.toFixed(1)} ms, p99 ${beside.p99.toFixed(1)} ms
p99 during the replay / p99 idle: ${(beside.p99 / idle.p99).toFixed(2)} (target <= 2)
`);
  await live.close();
  await receiver.close();
}

export async function eventsSection(stack, _auth, { quick, durationMs, eventsMillion: million, eventsReplay, inspectorPort }) {
  if (eventsReplay > 0) return replayAgainstDrain(stack, { count: eventsReplay, samples: quick ? 20 : 50, inspectorPort });
  const sizes = quick ? [10_000, 20_000] : million ? [100_000, 1_000_000] : [100_000];
  await feedAtScale(stack, { durationMs, sizes });
  await replayAgainstDrain(stack, { count: quick ? 1_000 : 10_000, samples: quick ? 20 : 50 });
}
