// Benchmarks on the Workers runtime itself (miniflare's Node API with the built bundles, not
// `wrangler dev`, whose proxy caps throughput here). Every figure is compared with a baseline
// measured in the same run: a bare Hono handler doing one D1 read by key.
//   npm run bench            all scenarios
//   npm run bench -- --quick shorter runs (for a smoke test)
//   npm run bench -- --only=pipeline|records|webhooks|oauth|inbox|meetings|mcp|catalogue|bulk|scale   one scenario
//   npm run bench -- --only=drain                                                               the outbox drain alone
//   npm run bench -- --only=chaos                                                               the drain with lanes restarted every 200 ms
//   npm run bench -- --only=records --records=1000000                                          the records at another size
//   npm run bench -- --only=events [--events-million]                                          the events feed and replay
//   npm run bench -- --only=coldstart                                                          a fresh gateway isolate's startup and first requests
import { gzipSync } from "node:zlib";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { build } from "esbuild";
import { convertV4MiniflareOptions, Miniflare } from "miniflare";
import { Webhook } from "standardwebhooks";
import { benchAccessToken } from "../bench/access-token.mjs";
import { bulkSection } from "../bench/bulk.mjs";
import { chaosSection, restarterWorker } from "../bench/chaos.mjs";
import { coldstartSection } from "../bench/coldstart.mjs";
import { eventsSection } from "../bench/events.mjs";
import { floorComparison, seedItems, startFloor } from "../bench/floor.mjs";
import { load } from "../bench/load.mjs";
import { startReceiver } from "../bench/receiver.mjs";
import { alternatingRounds } from "../bench/rounds.mjs";
import { scaleSection } from "../bench/scale.mjs";
import { buildDir, buildWorkers, organizationDatabase, startStack } from "./lib/stack.mjs";

const quick = process.argv.includes("--quick");
const durationMs = quick ? 3_000 : 10_000;
// The budgets are raised so that none refuses: the benchmark measures admission, with headroom.
// The switch lets scenario (d) turn the limiter off per request (refused outside the local stack).
const gatewayVars = { RATE_LIMIT_FACTOR: "1000", RATE_LIMITS_BENCH_SWITCH: "true" };

async function buildBundles() {
  buildWorkers();
  await build({
    entryPoints: ["bench/bare-worker.ts"],
    bundle: true,
    format: "esm",
    external: ["cloudflare:*"],
    outfile: `${buildDir}/bare/index.js`,
    logLevel: "warning",
  });
  // The inbox seed runs in Node, with the domain's own drizzle tables and search-row builder.
  await build({
    entryPoints: ["bench/inbox-seed.ts"],
    bundle: true,
    format: "esm",
    platform: "node",
    outfile: `${buildDir}/bench-inbox/seed.mjs`,
    logLevel: "warning",
  });
  // The scale simulation's organizations, placed by the gateway's own rule.
  await build({
    entryPoints: ["bench/tenants.ts"],
    bundle: true,
    format: "esm",
    platform: "node",
    outfile: `${buildDir}/bench-scale/tenants.mjs`,
    logLevel: "warning",
  });
}

async function startBare() {
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      host: "127.0.0.1",
      port: 0,
      workers: [
        {
          name: "bare",
          modules: true,
          scriptPath: `${buildDir}/bare/index.js`,
          compatibilityDate: "2026-11-01",
          d1Databases: { DB: "bench-bare" },
          durableObjects: { COUNTER: { className: "Counter", useSQLite: true } },
        },
      ],
    }),
  );
  const url = await mf.ready;
  await seedItems(await mf.getD1Database("DB"));
  return { mf, url: new URL("/items/item_500", url).href, countedUrl: new URL("/counted/items/item_500", url).href };
}

const ms = (value) => value.toFixed(2).padStart(8);
const row = (name, figures) =>
  `| ${name.padEnd(60)} | ${String(Math.round(figures.rps)).padStart(7)} | ${ms(figures.p50)} | ${ms(figures.p99)} |`;

async function pipelineSection(stack, auth) {
  const bare = await startBare();
  const pipelineUrl = new URL("/api/v1/workspaces", stack.url).href;
  const limiterCalls = async () => (await (await fetch(new URL("/__dev/rate-limiter-calls", stack.url))).json()).calls;
  console.log(`\nGateway pipeline vs bare handler (${durationMs / 1000} s per figure, ${new Date().toISOString()})\n`);
  console.log(`${header.replace("|\n", "| DO calls / request |\n")}--------------------|`);
  const figures = {};
  const withCalls = async (name, run) => {
    const before = await limiterCalls();
    const figure = await run();
    figure.callsPerRequest = ((await limiterCalls()) - before) / figure.sent;
    console.log(`${row(name, figure)} ${figure.callsPerRequest.toFixed(3).padStart(18)} |`);
    return figure;
  };
  for (const connections of [1, 32]) {
    figures[`bare${connections}`] = await load(bare.url, { connections, durationMs });
    console.log(row(`(a) bare Hono + 1 D1 read, c=${connections}`, figures[`bare${connections}`]));
    figures[`full${connections}`] = await withCalls(`(b) full pipeline GET /workspaces, c=${connections}`, () =>
      load(pipelineUrl, { connections, durationMs, headers: auth }),
    );
    figures[`counted${connections}`] = await load(bare.countedUrl, { connections, durationMs });
    console.log(row(`(c) = (a) + 5 parallel in-memory DO calls, c=${connections}`, figures[`counted${connections}`]));
    figures[`unlimited${connections}`] = await withCalls(`(d) = (b) with the limiter switched off, c=${connections}`, () =>
      load(pipelineUrl, { connections, durationMs, headers: { ...auth, "x-bench-rate-limits": "off" } }),
    );
  }
  console.log(`
ratio b/a throughput at c=32: ${(figures.full32.rps / figures.bare32.rps).toFixed(2)}
ratio b/d throughput at c=32: ${(figures.full32.rps / figures.unlimited32.rps).toFixed(2)} (target >= 0.9: the limiter costs at most 10%)
ratio c/a throughput at c=32: ${(figures.counted32.rps / figures.bare32.rps).toFixed(2)} (five Durable Object calls alone, no limiter logic)
added p50 (b - a) at c=1: ${(figures.full1.p50 - figures.bare1.p50).toFixed(2)} ms (target <= 1.0 ms)
limiter's p50 (b - d) at c=1: ${(figures.full1.p50 - figures.unlimited1.p50).toFixed(2)} ms
Durable Object calls per request (b): ${figures.full1.callsPerRequest.toFixed(3)} at c=1, ${figures.full32.callsPerRequest.toFixed(3)} at c=32 (target <= 0.2)
`);
  await bare.mf.dispose();
  const floor = await startFloor(buildDir);
  await floorComparison({ pipeline: { url: pipelineUrl, headers: auth }, floorUrl: floor.url, durationMs, row });
  await floor.mf.dispose();
}

/**
 * The same request with an OAuth access token and with an API key, both warm (the key cached, the
 * signing keys and revoked grants loaded, the token verified once): what a JWT costs against a
 * cached key. The two alternate in short rounds, so that the load of a shared machine falls on both
 * alike; the ratios are the medians of the per-round ratios, the figures the medians of the rounds.
 */
async function oauthSection(stack, auth) {
  const jwt = { authorization: `Bearer ${await benchAccessToken(stack)}` };
  const url = new URL("/api/v1/workspaces", stack.url).href;
  for (const headers of [auth, jwt]) {
    const response = await fetch(url, { headers });
    if (response.status !== 200) throw new Error(`GET /workspaces answered ${response.status} before the run`);
  }
  const rounds = 10;
  console.log(
    `\nOAuth access token vs API key, GET /workspaces (${rounds} alternating rounds of ${durationMs / rounds / 1000} s each, medians, ${new Date().toISOString()})\n`,
  );
  console.log(header);
  const ratios = {};
  for (const connections of [1, 32]) {
    const measured = await alternatingRounds(
      { key: { url, headers: auth }, jwt: { url, headers: jwt } },
      { connections, durationMs, rounds },
    );
    console.log(row(`API key, c=${connections}`, measured.figure("key")));
    console.log(row(`OAuth JWT (ES256), c=${connections}`, measured.figure("jwt")));
    ratios[connections] = { p50: measured.ratio("jwt", "key", "p50"), rps: measured.ratio("jwt", "key", "rps") };
  }
  console.log(`
JWT p50 / key p50 at c=1 (median of rounds): ${ratios[1].p50.toFixed(2)} (target <= 1.1)
JWT rps / key rps at c=32 (median of rounds): ${ratios[32].rps.toFixed(2)} (target >= 0.9)
`);
}

const recordsArgument = process.argv.find((arg) => arg.startsWith("--records="))?.slice("--records=".length);
const recordCount = recordsArgument ? Number(recordsArgument) : quick ? 20_000 : 100_000;
if (!Number.isInteger(recordCount) || recordCount < 2)
  throw new Error(`--records must be an integer of at least 2, got ${recordsArgument}`);
/** Rows per insert: one recursive insert of 1 000 000 rows ends the local runtime's connection to D1. */
const seedChunk = 50_000;

/**
 * `recordCount` deals in Acme's Sales workspace (`--records=N`, 100 000 by default), written
 * straight into the region's D1 by recursive-CTE inserts of `seedChunk` records each (creating them
 * through the API would take the whole run), in the same shape the API writes: one value row per
 * field and record.
 */
async function seedDeals(stack, auth) {
  const api = (path) => new URL(`/api/v1${path}`, stack.url);
  const sales = stack.demo.organizations[0].workspaces[0].id;
  const { objects } = await (await fetch(api(`/crm/objects?workspaceId=${sales}`), { headers: auth })).json();
  const deals = objects.find((object) => object.slug === "deals");
  const { data: fields } = await (await fetch(api(`/crm/objects/${deals.id}/fields`), { headers: auth })).json();
  const field = (slug) => fields.find((candidate) => candidate.slug === slug).id;
  const db = await organizationDatabase(stack, stack.demo.organizations[0]);
  const values = [
    [field("name"), "value_text", "'Deal ' || n"],
    [
      field("stage"),
      "value_text",
      "(case n % 5 when 0 then 'lead' when 1 then 'qualified' when 2 then 'proposal' when 3 then 'won' else 'lost' end)",
    ],
    [field("amount"), "value_number", "(n * 7919) % 100000"],
    [field("company"), "value_text", "null"],
    [field("close_date"), "value_text", "null"],
  ];
  const started = Date.now();
  for (let first = 0; first < recordCount; first += seedChunk) {
    const last = Math.min(recordCount, first + seedChunk) - 1;
    const sequence = `with recursive seq(n) as (select ${first} union all select n + 1 from seq where n < ${last})`;
    await db
      .prepare(
        `${sequence} insert into records (id, workspace_id, object_type_id, created_by, created_at, updated_at) select printf('rec_bench%08d', n), ?, ?, 'bench', ? + n, ? + n from seq`,
      )
      .bind(sales, deals.id, started, started)
      .run();
    for (const [fieldId, column, expression] of values) {
      await db
        .prepare(
          `${sequence} insert into record_values (record_id, field_definition_id, position, ${column}) select printf('rec_bench%08d', n), ?, 0, ${expression} from seq`,
        )
        .bind(fieldId)
        .run();
    }
  }
  return { deals, stage: field("stage"), amount: field("amount"), seededMs: Date.now() - started };
}

async function recordsSection(stack, auth) {
  const { deals, stage, amount, seededMs } = await seedDeals(stack, auth);
  const json = { ...auth, "content-type": "application/json" };
  const base = (path) => new URL(`/api/v1${path}`, stack.url).href;
  console.log(`\nRecords: ${recordCount} deals in one workspace (seeded in ${seededMs} ms), ${durationMs / 1000} s per figure\n`);
  console.log(header);
  const query = {
    objectTypeId: deals.id,
    filter: { op: "and", conditions: [{ fieldDefinitionId: stage, operator: "eq", value: "won" }] },
    sorts: [{ fieldDefinitionId: amount, direction: "desc" }],
    limit: 50,
  };
  // The read, its baseline and the query alternate: right after a bulk seed the database is still
  // settling, which measured one after the other would fall on whichever came first.
  const reads = await alternatingRounds(
    {
      get: { url: base(`/records/rec_bench${String(Math.floor(recordCount / 2)).padStart(8, "0")}`), headers: auth },
      workspaces: { url: base("/workspaces"), headers: auth },
      query: { url: base("/records/query"), method: "POST", headers: json, body: JSON.stringify(query) },
    },
    { connections: 1, durationMs },
  );
  const get = reads.figure("get");
  console.log(row(`GET /records/{id}, c=1 (${reads.rounds} rounds alternating with the next two, medians)`, get));
  console.log(row("GET /workspaces (one read, the pipeline's baseline), c=1", reads.figure("workspaces")));
  console.log(row("POST /records/query (filter + sort, 50), c=1", reads.figure("query")));
  let created = 0;
  const body = () =>
    JSON.stringify({
      objectTypeId: deals.id,
      fields: { name: `Bench deal ${created++}`, amount: created % 1000, stage: "qualified" },
    });
  const creation = await load(base("/records"), { connections: 8, durationMs, method: "POST", headers: json, body });
  console.log(row("POST /records (creation), c=8", creation));
  console.log(`
get p50 / GET /workspaces p50: ${reads.ratio("get", "workspaces", "p50").toFixed(2)} (median of the rounds' ratios; target <= 1.3)
query p50 / get p50: ${reads.ratio("query", "get", "p50").toFixed(2)} (median of the rounds' ratios; target <= 3)
record creations: ${Math.round(creation.rps)} per second at c=8
`);
}

const conversationCount = quick ? 20_000 : 100_000;

/**
 * 100 000 conversations with 3 messages each in Acme's Support workspace, written straight into the
 * us region's D1 (bench/inbox-seed.ts), then the list's three access paths through the full
 * pipeline with alice's key, each against reading one conversation: full-text search, a view
 * (the system view "Assigned to me": open and assigned to alice, a quarter of them), and
 * `hasLinkedRecords=true` (a third).
 */
async function inboxSection(stack, auth) {
  const api = (path) => new URL(`/api/v1${path}`, stack.url).href;
  const json = { ...auth, "content-type": "application/json" };
  const acme = stack.demo.organizations[0];
  const support = acme.workspaces[1];
  const alice = acme.users[0];
  const { objects } = await (await fetch(api(`/crm/objects?workspaceId=${support.id}`), { headers: auth })).json();
  const people = objects.find((object) => object.slug === "people");
  const person = await fetch(api("/records"), {
    method: "POST",
    headers: json,
    body: JSON.stringify({ objectTypeId: people.id, fields: { name: "Bench customer", email: "bench@bench.example" } }),
  });
  const { record } = await person.json();
  const { seedInbox } = await import(`../${buildDir}/bench-inbox/seed.mjs`);
  const seededMs = await seedInbox(await organizationDatabase(stack, stack.demo.organizations[0]), {
    workspaceId: support.id,
    mailbox: support.mailbox,
    assigneeUserId: alice.id,
    recordId: record.id,
    conversationCount,
    messagesPerConversation: 3,
  });
  const { data: views } = await (await fetch(api(`/inbox/views?workspaceId=${support.id}`), { headers: auth })).json();
  const assignedToMe = views.find((view) => view.systemViewKey === "assigned_to_me");
  const list = (query) => api(`/inbox/conversations?workspaceId=${support.id}&${query}`);
  console.log(
    `\nInbox: ${conversationCount} conversations, ${conversationCount * 3} messages in one workspace (seeded in ${seededMs} ms), ${durationMs / 1000} s per figure\n`,
  );
  console.log(header);
  const measure = async (name, url, connections = 1) => {
    const figures = await load(url, { connections, durationMs, headers: auth });
    console.log(row(`${name}, c=${connections}`, figures));
    return figures;
  };
  const getUrl = api(`/inbox/conversations/conv_bench${String(conversationCount / 2).padStart(8, "0")}`);
  const lists = [
    [`?q=refund (FTS, ${conversationCount / 100} matches)`, list("q=refund")],
    // One customer's address: 20 conversations (customers are numbered below 5 000).
    ["?q=customer4242@bench.example (FTS, 20 matches)", list(`q=${encodeURIComponent("customer4242@bench.example")}`)],
    ["?viewId= (assigned to me)", list(`viewId=${assignedToMe.id}`)],
    ["?hasLinkedRecords=true", list("hasLinkedRecords=true")],
  ];
  // Each list alternates with the single read in the same rounds, so that the load of a shared
  // machine falls on both alike.
  const rounds = await alternatingRounds(
    Object.fromEntries([["get", { url: getUrl, headers: auth }], ...lists.map(([name, url]) => [name, { url, headers: auth }])]),
    { connections: 1, durationMs },
  );
  console.log(
    row(`GET /inbox/conversations/{id}, c=1 (${rounds.rounds} rounds alternating with the lists, medians)`, rounds.figure("get")),
  );
  const ratios = [];
  for (const [name] of lists) {
    console.log(row(`GET /inbox/conversations${name}, c=1`, rounds.figure(name)));
    ratios.push(`${name}: ${rounds.ratio(name, "get", "p50").toFixed(2)}`);
  }
  for (const [name, url] of lists) await measure(`GET /inbox/conversations${name}`, url, 8);
  console.log(`\nlist p50 / get p50 (median of the rounds' ratios; target <= 3 each): ${ratios.join("; ")}\n`);

  // Inbound mail as Email Routing hands it over, each message a new conversation, against record
  // creation in the same run (both at c=8).
  let created = 0;
  const creations = await load(api("/records"), {
    connections: 8,
    durationMs,
    method: "POST",
    headers: json,
    body: () => JSON.stringify({ objectTypeId: people.id, fields: { name: `Bench person ${created++}` } }),
  });
  console.log(row("POST /records (creation), c=8", creations));
  const runId = crypto.randomUUID();
  let delivered = 0;
  const customer = "casey@bench.example";
  const mail = () =>
    [
      `From: Casey Customer <${customer}>`,
      `To: ${support.mailbox}`,
      `Subject: Inbound benchmark ${delivered}`,
      `Message-ID: <${runId}.${delivered++}@bench.example>`,
      `Date: ${new Date().toUTCString()}`,
      "MIME-Version: 1.0",
      "Content-Type: text/plain; charset=utf-8",
      "",
      "Hello, this is a question that arrived by e-mail.",
      "",
    ].join("\r\n");
  const inbound = await load(
    new URL(`/cdn-cgi/local/email?from=${encodeURIComponent(customer)}&to=${encodeURIComponent(support.mailbox)}`, stack.url)
      .href,
    { connections: 8, durationMs, method: "POST", headers: { "content-type": "message/rfc822" }, body: mail },
  );
  console.log(row("inbound mail through email(), c=8", inbound));
  console.log(`inbound mail / record creations: ${(inbound.rps / creations.rps).toFixed(2)} (target >= 0.5)\n`);
}

const eventCount = quick ? 200 : 1000;

/** Runs `task(i)` for i in [0, count) on `connections` concurrent workers. */
async function run(count, connections, task) {
  let next = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

/**
 * Record creations fanned out to a receiver that verifies every signature, against the same
 * receiver fed by a bare Node loop that signs and posts: the delivery pipeline's cost in one run.
 */
async function webhooksSection(stack, auth) {
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
  await outboxDrain(stack, { receiver, secret, support, people });
  await receiver.close();
  await deliveryLatency(stack);
}

/** A `record.created` subscription in Acme's Support workspace to the receiver, which verifies with its secret. */
async function supportSubscription(stack, auth, receiver) {
  const api = (path) => new URL(`/api/v1${path}`, stack.url);
  const support = stack.demo.organizations[0].workspaces[1].id;
  const { objects } = await (await fetch(api(`/crm/objects?workspaceId=${support}`), { headers: auth })).json();
  const people = objects.find((object) => object.slug === "people");
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
async function drainSection(stack, auth) {
  const receiver = await startReceiver();
  const { support, people, secret } = await supportSubscription(stack, auth, receiver);
  await outboxDrain(stack, { receiver, secret, support, people });
  await receiver.close();
}

const drainCount = quick ? 1000 : 5000;

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
async function outboxDrain(stack, { receiver, secret, support, people }) {
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

const latencySamples = quick ? 20 : 50;
const percentile = (values, p) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))];

/**
 * Write-to-receipt latency of one subscription in Initech (a tenant of the same region as Acme):
 * records created one at a time, each timed from the request to its verified delivery. Measured
 * idle, then while 100 deliveries hang in Acme's Sales (five subscriptions to a receiver that
 * accepts and never answers, 20 records), in the same run.
 */
async function deliveryLatency(stack) {
  const initech = stack.demo.organizations[2];
  const main = initech.workspaces[0].id;
  const erin = { authorization: `Bearer ${initech.users[0].apiKey}`, "content-type": "application/json" };
  const api = (path) => new URL(`/api/v1${path}`, stack.url);
  const { objects } = await (await fetch(api(`/crm/objects?workspaceId=${main}`), { headers: erin })).json();
  const people = objects.find((object) => object.slug === "people");
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
  const measure = async () => {
    const latencies = [];
    for (let i = 0; i < latencySamples; i++) {
      const started = performance.now();
      const response = await fetch(api("/records"), {
        method: "POST",
        headers: erin,
        body: JSON.stringify({ objectTypeId: people.id, fields: { name: `Latency ${i}` } }),
      });
      const { record } = await response.json();
      latencies.push((await arrival(record.id).promise) - started);
    }
    return { p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99) };
  };
  const idle = await measure();

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
  const salesObjects = (await (await fetch(api(`/crm/objects?workspaceId=${sales}`), { headers: alice })).json()).objects;
  const salesPeople = salesObjects.find((object) => object.slug === "people");
  for (let i = 0; i < 20; i++)
    await fetch(api("/records"), {
      method: "POST",
      headers: alice,
      body: JSON.stringify({ objectTypeId: salesPeople.id, fields: { name: `Hanging ${i}` } }),
    });
  const besideHanging = await measure();
  console.log(`Delivery latency, write to verified receipt, ${latencySamples} records one at a time in Initech
idle: p50 ${idle.p50.toFixed(1)} ms, p99 ${idle.p99.toFixed(1)} ms (target p50 <= 1000 ms)
with 100 deliveries hanging in Acme: p50 ${besideHanging.p50.toFixed(1)} ms, p99 ${besideHanging.p99.toFixed(1)} ms
p99 with hanging / p99 idle: ${(besideHanging.p99 / idle.p99).toFixed(2)} (target <= 2)
`);
  hanging.closeAllConnections();
  hanging.close();
  await receiver.close();
}

const header = `| ${"scenario".padEnd(60)} |     rps | p50 (ms) | p99 (ms) |\n|${"-".repeat(62)}|---------|----------|----------|`;
const meetingCount = quick ? 10_000 : 50_000;

/**
 * Signed provider events through the inbound route (signature, dedupe row, meeting upsert,
 * participant matched to a person record, outbox event) against record creations in the same run;
 * then the meeting list over 50 000 meetings against reading one meeting.
 */
async function meetingsSection(stack, auth) {
  const api = (path) => new URL(`/api/v1${path}`, stack.url).href;
  const json = { ...auth, "content-type": "application/json" };
  const sales = stack.demo.organizations[0].workspaces[0].id;
  const created = await fetch(api("/integrations/connections"), {
    method: "POST",
    headers: json,
    body: JSON.stringify({ workspaceId: sales, provider: "meeting_notes", name: "Bench notetaker" }),
  });
  const { connection, secret } = await created.json();
  const { objects } = await (await fetch(api(`/crm/objects?workspaceId=${sales}`), { headers: auth })).json();
  const people = objects.find((object) => object.slug === "people");
  const { data: persons } = await (await fetch(api(`/records?objectTypeId=${people.id}&limit=1`), { headers: auth })).json();
  const guest = persons[0].fields.email;
  const signer = new Webhook(secret);
  let sent = 0;
  const event = () =>
    JSON.stringify({
      type: "meeting.scheduled",
      occurredAt: Date.now(),
      data: { meetingId: `bench-${sent++}`, title: "Bench meeting", startTimeMs: Date.now(), attendees: [{ email: guest }] },
    });
  const signed = (body) => {
    const id = `msg_bench_${sent}_${Math.random().toString(36).slice(2)}`;
    const now = new Date();
    return {
      "content-type": "application/json",
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
      "webhook-signature": signer.sign(id, now, body),
    };
  };
  console.log(`
Meetings: signed events vs record creations, then ${meetingCount} meetings, ${durationMs / 1000} s per figure
`);
  console.log(header);
  const inbound = await load(connection.inboundUrl, { connections: 8, durationMs, method: "POST", headers: signed, body: event });
  console.log(row("POST inbound meeting.scheduled (signed), c=8", inbound));
  let records = 0;
  const record = () => JSON.stringify({ objectTypeId: people.id, fields: { name: `Bench person ${records++}` } });
  const creation = await load(api("/records"), { connections: 8, durationMs, method: "POST", headers: json, body: record });
  console.log(row("POST /records (creation), c=8", creation));

  // Many meetings, written straight into the region's D1 in the shape the inbound route writes.
  const db = await organizationDatabase(stack, stack.demo.organizations[0]);
  const sequence = `with recursive seq(n) as (select 0 union all select n + 1 from seq where n < ${meetingCount - 1})`;
  const started = Date.now();
  await db
    .prepare(
      `${sequence} insert into meetings (id, workspace_id, source, external_id, title, description, start_time_ms, is_all_day, attendee_emails, event_state, has_transcript, details_at, created_at, updated_at)
       select printf('mtg_bench%08d', n), ?, 'meeting_notes', printf('seeded-%08d', n), 'Seeded meeting ' || n, '', ? - n * 60000, 0, '[]', case n % 10 when 0 then 'cancelled' else 'active' end, n % 2, ?, ?, ? from seq`,
    )
    .bind(sales, started, started, started, started)
    .run();
  await db
    .prepare(
      `${sequence} insert into meeting_participants (id, meeting_id, workspace_id, participant_key, email, is_host, from_calendar_invitee, from_realtime_participant, changed_at, created_at)
       select printf('mpt_bench%08d', n), printf('mtg_bench%08d', n), ?, 'email:guest' || n || '@bench.example', 'guest' || n || '@bench.example', 0, 1, 0, ?, ? from seq`,
    )
    .bind(sales, started, started)
    .run();
  const list = await load(api(`/meetings?workspaceId=${sales}`), { connections: 1, durationMs, headers: auth });
  console.log(row("GET /meetings (50 with participants), c=1", list));
  const one = await load(api(`/meetings/mtg_bench${String(meetingCount / 2).padStart(8, "0")}`), {
    connections: 1,
    durationMs,
    headers: auth,
  });
  console.log(row("GET /meetings/{id}, c=1", one));
  console.log(`
inbound events / record creations at c=8: ${(inbound.rps / creation.rps).toFixed(2)} (target >= 0.5)
list p50 / get p50 with ${meetingCount} meetings: ${(list.p50 / one.p50).toFixed(2)} (target <= 3)
`);
}

/**
 * The `tools/call` of `name` exactly as the SDK's v2 client sends it at MCP revision 2026-07-28
 * (recorded once from the client, then replayed by the load generator), and its answer checked: a
 * tool error is a 200 too, which the load generator alone would count as a success.
 */
async function recordedToolCall(mcpUrl, auth, name) {
  let recorded;
  const client = new Client({ name: "bench", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
    requestInit: { headers: auth },
    fetch: async (input, init) => {
      const body = typeof init?.body === "string" ? init.body : undefined;
      if (body?.includes('"tools/call"')) recorded = { headers: Object.fromEntries(new Headers(init.headers)), body };
      return fetch(input, init);
    },
  });
  await client.connect(transport);
  const result = await client.callTool({ name, arguments: {} });
  const protocolVersion = transport.protocolVersion;
  await client.close();
  if (result.isError || !result.structuredContent) throw new Error(`${name} answered ${JSON.stringify(result)}`);
  if (!recorded) throw new Error("the client sent no tools/call request");
  return { request: { method: "POST", headers: recorded.headers, body: recorded.body }, protocolVersion };
}

/**
 * `workspaces_list` through `POST /mcp` against `GET /workspaces` with the same key: the MCP
 * endpoint's own cost (Host/Origin checks, authentication, the server and its tool, JSON-RPC) on top
 * of the same pipeline. Diagnostic: `auth_whoami`, the endpoint and the SDK with a tool that reads
 * nothing. The three alternate in short rounds as in the OAuth section; the bare Hono handler is
 * measured before them, the baseline every section is read against.
 */
async function mcpSection(stack, auth) {
  const restUrl = new URL("/api/v1/workspaces", stack.url).href;
  const mcpUrl = new URL("/mcp", stack.url).href;
  const workspaces = await recordedToolCall(mcpUrl, auth, "workspaces_list");
  const whoami = await recordedToolCall(mcpUrl, auth, "auth_whoami");
  const surfaces = [
    ["rest", "REST GET /workspaces", restUrl, { headers: auth }],
    ["mcp", "MCP tools/call workspaces_list", mcpUrl, workspaces.request],
    ["whoami", "(diagnostic) MCP tools/call auth_whoami", mcpUrl, whoami.request],
  ];
  const bare = await startBare();
  const rounds = 10;
  console.log(
    `\nMCP workspaces_list vs REST GET /workspaces, one key (MCP ${workspaces.protocolVersion}; bare ${durationMs / 1000} s, then ${rounds} alternating rounds of ${durationMs / rounds / 1000} s each, medians, ${new Date().toISOString()})\n`,
  );
  console.log(header);
  const ratios = {};
  for (const connections of [1, 32]) {
    console.log(row(`bare Hono + 1 D1 read, c=${connections}`, await load(bare.url, { connections, durationMs })));
    const measured = await alternatingRounds(
      Object.fromEntries(surfaces.map(([surface, , url, request]) => [surface, { url, ...request }])),
      { connections, durationMs, rounds },
    );
    for (const [surface, name] of surfaces) console.log(row(`${name}, c=${connections}`, measured.figure(surface)));
    ratios[connections] = {
      p50: measured.ratio("mcp", "rest", "p50"),
      rps: measured.ratio("mcp", "rest", "rps"),
      whoamiP50: measured.ratio("whoami", "rest", "p50"),
    };
  }
  console.log(`
MCP p50 / REST p50 at c=1 (median of rounds): ${ratios[1].p50.toFixed(2)} (target <= 1.3)
MCP rps / REST rps at c=32 (median of rounds): ${ratios[32].rps.toFixed(2)} (target >= 0.7)
auth_whoami p50 / REST p50 at c=1: ${ratios[1].whoamiP50.toFixed(2)} (the endpoint and the SDK without the pipeline)
`);
  await bare.mf.dispose();
}

/**
 * The public integrations catalogue and change log: what building the catalogue costs an isolate
 * once (the OpenAPI document and the event schemas generated, in Node's V8 like workerd's), then the
 * served answers against the bare handler and the authenticated pipeline in the same run.
 */
async function catalogueSection(stack, auth) {
  const outfile = `${buildDir}/bench-catalogue/contracts.mjs`;
  await build({
    entryPoints: ["packages/contracts/src/index.ts"],
    bundle: true,
    platform: "node",
    format: "esm",
    outfile,
    logLevel: "warning",
  });
  const { openApiDocument, publishedIntegrations } = await import(`${process.cwd()}/${outfile}`);
  // The gateway shares one OpenAPI document per isolate between /openapi.json, the docs and the catalogue.
  const documentMs = [];
  const catalogueMs = [];
  for (let run = 0; run < 20; run++) {
    const origin = `https://bench-${run}.example`;
    let started = performance.now();
    const document = openApiDocument(origin);
    documentMs.push(performance.now() - started);
    started = performance.now();
    publishedIntegrations(origin, document);
    catalogueMs.push(performance.now() - started);
  }
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)].toFixed(1);
  const api = (path) => new URL(`/api/v1${path}`, stack.url).href;
  const body = await (await fetch(api("/public/integrations/crm"))).arrayBuffer();
  const bare = await startBare();
  console.log(`
Public catalogue: built once per isolate in ${median(catalogueMs)} ms from the OpenAPI document (itself ${median(documentMs)} ms, shared with /openapi.json); medians of 20;
the list is ${Math.round(body.byteLength / 1024)} KiB, ${Math.round(gzipSync(Buffer.from(body)).byteLength / 1024)} KiB gzipped. ${durationMs / 1000} s per figure
`);
  console.log(header);
  const figures = {
    bare: await load(bare.url, { connections: 32, durationMs }),
    list: await load(api("/public/integrations/crm"), { connections: 32, durationMs }),
    changelog: await load(api("/changelog"), { connections: 32, durationMs }),
    workspaces: await load(api("/workspaces"), { connections: 32, durationMs, headers: auth }),
  };
  console.log(row("(a) bare Hono + 1 D1 read, c=32", figures.bare));
  console.log(row("(b) GET /public/integrations/crm (no credential), c=32", figures.list));
  console.log(row("(c) GET /changelog (no credential), c=32", figures.changelog));
  console.log(row("(d) GET /workspaces with an API key, c=32", figures.workspaces));
  console.log(`
ratio b/a throughput: ${(figures.list.rps / figures.bare.rps).toFixed(2)}; b/d: ${(figures.list.rps / figures.workspaces.rps).toFixed(2)}
`);
  await bare.mf.dispose();
}

const only = process.argv.find((arg) => arg.startsWith("--only="))?.slice("--only=".length);

await buildBundles();
// Loopback receivers, and a burst limit raised like the rate limits: the benchmark measures delivery.
const stack = await startStack({
  gatewayVars,
  regionVars: { WEBHOOKS_ALLOW_LOOPBACK: "true", WEBHOOK_BURST_FACTOR: "100" },
  triggerHandlers: true,
  extraWorkers: only === "chaos" ? [restarterWorker] : [],
});
const auth = { authorization: `Bearer ${stack.demo.organizations[0].users[0].apiKey}` };
if (!only || only === "pipeline") await pipelineSection(stack, auth);
if (!only || only === "records") await recordsSection(stack, auth);
if (!only || only === "webhooks") await webhooksSection(stack, auth);
if (only === "drain") await drainSection(stack, auth);
if (only === "chaos") await chaosSection(stack, auth, { quick });
if (!only || only === "oauth") await oauthSection(stack, auth);
if (!only || only === "inbox") await inboxSection(stack, auth);
if (!only || only === "meetings") await meetingsSection(stack, auth);
if (!only || only === "mcp") await mcpSection(stack, auth);
if (!only || only === "catalogue") await catalogueSection(stack, auth);
if (!only || only === "bulk") {
  const { seedInbox } = await import(`../${buildDir}/bench-inbox/seed.mjs`);
  await bulkSection(stack, auth, {
    quick,
    durationMs,
    header,
    row,
    seedInbox,
    database: (org) => organizationDatabase(stack, org),
  });
}
if (!only || only === "events")
  await eventsSection(stack, { quick, durationMs, million: process.argv.includes("--events-million") });
if (!only || only === "scale") {
  const { createTenant } = await import(`../${buildDir}/bench-scale/tenants.mjs`);
  await scaleSection(stack, { quick, createTenant });
}
// Last: it restarts the stack's isolates.
if (!only || only === "coldstart") await coldstartSection(stack, { auth, buildDir, mcpToolCall: recordedToolCall, quick });
await stack.mf.dispose();
