// A synthetic multi-tenant day against the local stack, at reduced scale (docs/scale.md): many
// organizations of skewed sizes (Zipf), placed by the gateway's own least-filled-shard rule, send a
// mix of record reads, lists, queries and writes whose volume follows a day's curve. Every hour is
// replayed also from one organization with one key at the same concurrency (the baseline). Reports
// p50/p99 per route beside the baseline's, Durable Object calls per request and the API-key cache's
// hit rate of each, the busiest and the quietest hour, how organizations, requests, writes, rows and
// bytes spread over the shards of each region, and last `p50 / single-key baseline: <ratio>`.
//   npm run bench -- --only=scale [--quick]
import http from "node:http";
import { regionShards } from "../packages/contracts/src/shards.ts";
import { buildDir, organizationDatabase } from "../scripts/lib/stack.mjs";
import { seededRandom } from "../test/seeded-random.ts";

/** Share of the day's traffic in each hour (UTC): quiet at night, a peak in the afternoon. */
const hourShares = (() => {
  const raw = Array.from({ length: 24 }, (_, hour) => 0.15 + Math.sin((Math.PI * Math.max(0, hour - 6)) / 16) ** 2);
  const total = raw.reduce((sum, share) => sum + share, 0);
  return raw.map((share) => share / total);
})();

/** What an organization does, by share of its requests. */
const routeMix = [
  ["GET /records/{recordId}", 0.35],
  ["GET /records", 0.15],
  ["POST /records/query", 0.1],
  ["POST /records", 0.2],
  ["PATCH /records/{recordId}", 0.12],
  ["GET /workspaces", 0.08],
];

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

function request(agent, url, { method = "GET", headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const sent = http.request(url, { agent, method, headers }, (response) => {
      const chunks = [];
      response.on("data", (chunk) => chunks.push(chunk));
      response.on("end", () =>
        resolve({ status: response.statusCode, ms: performance.now() - started, text: Buffer.concat(chunks).toString() }),
      );
    });
    sent.on("error", reject);
    sent.end(body);
  });
}

/**
 * `tenants` organizations (70% us, 30% eu, created in a random order as customers sign up), sizes by
 * Zipf's law with exponent 1.1: the largest sends about a quarter of all requests.
 */
async function createTenants(stack, createTenant, { tenants, next }) {
  const controlDb = await stack.mf.getD1Database("CONTROL_DB", "crm-gateway");
  const shardDb = (region, shard) => organizationDatabase(stack, { region, shard });
  const ranks = Array.from({ length: tenants }, (_, index) => index + 1).sort(() => next() - 0.5);
  const created = [];
  for (const rank of ranks) {
    const region = next() < 0.7 ? "us" : "eu";
    const tenant = await createTenant(controlDb, shardDb, { name: `Scale tenant ${rank}`, region });
    created.push({ ...tenant, rank, weight: 1 / rank ** 1.1 });
  }
  return created;
}

/** Each tenant's own object type, its name field, and a few records to read from the first minute. */
async function prepareTenant(api, tenant) {
  const headers = { authorization: `Bearer ${tenant.apiKey}`, "content-type": "application/json" };
  const objectType = await fetch(api("/crm/objects"), {
    method: "POST",
    headers,
    body: JSON.stringify({ workspaceId: tenant.workspaceId, nameSingular: "Deal", namePlural: "Deals" }),
  });
  if (objectType.status !== 201) throw new Error(`object type: ${objectType.status} ${await objectType.text()}`);
  const { object } = await objectType.json();
  const { data: fields } = await (await fetch(api(`/crm/objects/${object.id}/fields`), { headers })).json();
  const records = [];
  for (let i = 0; i < 3; i++) {
    const response = await fetch(api("/records"), {
      method: "POST",
      headers,
      body: JSON.stringify({ objectTypeId: object.id, fields: { name: `Deal ${i}` } }),
    });
    records.push((await response.json()).record.id);
  }
  return { ...tenant, headers, objectTypeId: object.id, nameField: fields.find((field) => field.slug === "name").id, records };
}

function pick(next, items, weightOf) {
  const total = items.reduce((sum, item) => sum + weightOf(item), 0);
  let point = next() * total;
  for (const item of items) {
    point -= weightOf(item);
    if (point <= 0) return item;
  }
  return items.at(-1);
}

/** The request a tenant sends for `route`, against its own records. */
function requestFor(route, tenant, next, api) {
  const record = tenant.records[Math.floor(next() * tenant.records.length)];
  const json = (body) => ({ headers: tenant.headers, body: JSON.stringify(body) });
  switch (route) {
    case "GET /records/{recordId}":
      return [api(`/records/${record}`), { headers: tenant.headers }];
    case "GET /records":
      return [api(`/records?objectTypeId=${tenant.objectTypeId}&limit=20`), { headers: tenant.headers }];
    case "POST /records/query":
      return [
        api("/records/query"),
        {
          method: "POST",
          ...json({
            objectTypeId: tenant.objectTypeId,
            sorts: [{ fieldDefinitionId: tenant.nameField, direction: "desc" }],
            limit: 20,
          }),
        },
      ];
    case "POST /records":
      return [
        api("/records"),
        { method: "POST", ...json({ objectTypeId: tenant.objectTypeId, fields: { name: `Deal ${next()}` } }) },
      ];
    case "PATCH /records/{recordId}":
      return [api(`/records/${record}`), { method: "PATCH", ...json({ fields: { name: `Renamed ${next()}` } }) }];
    default:
      return [api("/workspaces"), { headers: tenant.headers }];
  }
}

const isWrite = (route) => route === "POST /records" || route.startsWith("PATCH");

/**
 * Organizations, rows and bytes per shard, read from the databases themselves; `leftOut` (the
 * baseline's organization) is not counted in organizations and rows, though its rows are in its shard's bytes.
 */
async function shardFigures(stack, leftOut = { organizationId: "", workspaceId: "" }) {
  const controlDb = await stack.mf.getD1Database("CONTROL_DB", "crm-gateway");
  const { results } = await controlDb
    .prepare("select region, shard, count(*) as organizations from organizations where id <> ? group by region, shard")
    .bind(leftOut.organizationId)
    .all();
  const figures = [];
  for (const [region, count] of Object.entries(regionShards)) {
    for (let shard = 1; shard <= count; shard++) {
      const db = await organizationDatabase(stack, { region, shard });
      const records = (
        await db.prepare("select count(*) as n from records where workspace_id <> ?").bind(leftOut.workspaceId).first()
      ).n;
      const values = (
        await db
          .prepare("select count(*) as n from record_values v join records r on r.id = v.record_id where r.workspace_id <> ?")
          .bind(leftOut.workspaceId)
          .first()
      ).n;
      const { meta } = await db.prepare("select 1").run();
      const organizations = results.find((row) => row.region === region && row.shard === shard)?.organizations ?? 0;
      figures.push({ region, shard, organizations, records, values, bytes: meta.size_after });
    }
  }
  return figures;
}

/** The gateway's own counters (DEV_TOOLS): Durable Object calls of its limiter, and its API-key cache's hits and misses. */
async function gatewayCounters(stack) {
  const { calls, keyCache } = await (await fetch(new URL("/__dev/rate-limiter-calls", stack.url))).json();
  return { calls, hits: keyCache.hits, misses: keyCache.misses };
}

/** A variant's running figures: latencies per route, requests, failures and the gateway's counters spent on them. */
const emptyFigures = () => ({
  latencies: new Map(routeMix.map(([route]) => [route, []])),
  sent: 0,
  calls: 0,
  hits: 0,
  misses: 0,
});

/**
 * Sends `plan` (one hour: `{ tenant, route }` in order) over `connections` connections, adding what
 * it measured to `figures`; `onAnswer` sees every 2xx answer. Returns the hour's sorted latencies.
 */
async function replay(stack, plan, { connections, api, next, figures, onAnswer }) {
  const before = await gatewayCounters(stack);
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const hourLatencies = [];
  let issued = 0;
  let failures = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (issued < plan.length) {
        const { tenant, route } = plan[issued++];
        const [url, init] = requestFor(route, tenant, next, api);
        const response = await request(agent, url, init);
        figures.sent++;
        if (response.status < 200 || response.status >= 300) {
          failures++;
          continue;
        }
        if (route === "POST /records") tenant.records.push(JSON.parse(response.text).record.id);
        figures.latencies.get(route).push(response.ms);
        hourLatencies.push(response.ms);
        onAnswer?.(tenant, route);
      }
    }),
  );
  agent.destroy();
  const after = await gatewayCounters(stack);
  for (const counter of ["calls", "hits", "misses"]) figures[counter] += after[counter] - before[counter];
  return { latencies: hourLatencies.sort((a, b) => a - b), failures };
}

export async function scaleSection(stack, _auth, { quick }) {
  const { createTenant } = await import(`../${buildDir}/bench-scale/tenants.mjs`);
  const next = seededRandom(17);
  const api = (path) => new URL(`/api/v1${path}`, stack.url).href;
  const tenantCount = quick ? 24 : 48;
  const dayRequests = quick ? 3_000 : 10_000;
  const maxConnections = 16;
  // Today's seed alone: what 100× and 10 000× multiply (docs/scale.md).
  const seed = await shardFigures(stack);
  console.log(
    `\nThe demo seed alone: ${seed.map((shard) => `${shard.region}-${shard.shard} ${shard.organizations} organizations, ${shard.records} records, ${Math.round(shard.bytes / 1024)} KiB`).join("; ")}`,
  );
  const started = performance.now();
  const tenants = [];
  for (const tenant of await createTenants(stack, createTenant, { tenants: tenantCount, next }))
    tenants.push(await prepareTenant(api, tenant));
  // The baseline: the same requests, in the same order and at the same concurrency, all from one
  // organization with one key (created like the others, outside the day's own shard figures).
  const controlDb = await stack.mf.getD1Database("CONTROL_DB", "crm-gateway");
  const single = await prepareTenant(
    api,
    await createTenant(controlDb, (region, shard) => organizationDatabase(stack, { region, shard }), {
      name: "Scale baseline",
      region: "us",
    }),
  );
  console.log(
    `\nScale: a synthetic day of ${dayRequests} requests from ${tenantCount} organizations (Zipf 1.1 sizes; set up in ${Math.round(performance.now() - started)} ms), up to ${maxConnections} connections at the peak hour, each hour replayed also from one organization with one key (the baseline), the two alternating\n`,
  );

  const day = emptyFigures();
  const baseline = emptyFigures();
  const perShard = new Map();
  const hours = [];
  let failures = 0;
  const countShard = (tenant, route) => {
    const shardKey = `${tenant.region}-${tenant.shard}`;
    const counts = perShard.get(shardKey) ?? { requests: 0, writes: 0 };
    counts.requests++;
    if (isWrite(route)) counts.writes++;
    perShard.set(shardKey, counts);
  };
  const peak = Math.max(...hourShares);
  for (const [hour, share] of hourShares.entries()) {
    const count = Math.round(dayRequests * share);
    const connections = Math.max(1, Math.round((maxConnections * share) / peak));
    const plan = Array.from({ length: count }, () => ({
      tenant: pick(next, tenants, (candidate) => candidate.weight),
      route: pick(next, routeMix, ([, weight]) => weight)[0],
    }));
    const runDay = async () => {
      const hourStarted = performance.now();
      const run = await replay(stack, plan, { connections, api, next, figures: day, onAnswer: countShard });
      failures += run.failures;
      hours.push({
        hour,
        count,
        connections,
        rps: count / ((performance.now() - hourStarted) / 1000),
        p99: percentile(run.latencies, 99),
      });
    };
    const runBaseline = async () => {
      const singlePlan = plan.map(({ route }) => ({ tenant: single, route }));
      failures += (await replay(stack, singlePlan, { connections, api, next, figures: baseline })).failures;
    };
    // Alternating which goes first, so that neither always follows the other's writes.
    if (hour % 2 === 0) {
      await runDay();
      await runBaseline();
    } else {
      await runBaseline();
      await runDay();
    }
  }

  console.log(
    `| route                       | requests | p50 (ms) | p99 (ms) | baseline p50 | baseline p99 | p50 ratio |\n|-----------------------------|----------|----------|----------|--------------|--------------|-----------|`,
  );
  const sortedAll = (figures) => [...figures.latencies.values()].flat().sort((a, b) => a - b);
  for (const [route, values] of day.latencies) {
    const base = baseline.latencies.get(route);
    values.sort((a, b) => a - b);
    base.sort((a, b) => a - b);
    console.log(
      `| ${route.padEnd(27)} | ${String(values.length).padStart(8)} | ${percentile(values, 50).toFixed(2).padStart(8)} | ${percentile(values, 99).toFixed(2).padStart(8)} | ${percentile(base, 50).toFixed(2).padStart(12)} | ${percentile(base, 99).toFixed(2).padStart(12)} | ${(percentile(values, 50) / percentile(base, 50)).toFixed(2).padStart(9)} |`,
    );
  }
  const dayAll = sortedAll(day);
  const baselineAll = sortedAll(baseline);
  const describe = (figures, all) =>
    `p50 ${percentile(all, 50).toFixed(2)} / p99 ${percentile(all, 99).toFixed(2)} ms, ${(figures.calls / figures.sent).toFixed(3)} Durable Object calls a request, key cache hit rate ${((100 * figures.hits) / Math.max(1, figures.hits + figures.misses)).toFixed(1)}% (${figures.misses} misses)`;
  const busiest = hours.reduce((a, b) => (b.count > a.count ? b : a));
  const quietest = hours.reduce((a, b) => (b.count < a.count ? b : a));
  console.log(`
the day, ${tenantCount} organizations: ${describe(day, dayAll)}
baseline, one organization and one key: ${describe(baseline, baselineAll)}
busiest hour ${busiest.hour}:00: ${busiest.count} requests at c=${busiest.connections}, ${Math.round(busiest.rps)} rps, p99 ${busiest.p99.toFixed(2)} ms
quietest hour ${quietest.hour}:00: ${quietest.count} requests at c=${quietest.connections}, ${Math.round(quietest.rps)} rps, p99 ${quietest.p99.toFixed(2)} ms
responses that were not 2xx: ${failures}
`);

  const shards = await shardFigures(stack, single);
  console.log(
    `| shard | organizations | sim. requests | sim. writes | records | record values | size (KiB) |\n|-------|---------------|---------------|-------------|---------|---------------|------------|`,
  );
  for (const shard of shards) {
    const counts = perShard.get(`${shard.region}-${shard.shard}`) ?? { requests: 0, writes: 0 };
    console.log(
      `| ${`${shard.region}-${shard.shard}`.padEnd(5)} | ${String(shard.organizations).padStart(13)} | ${String(counts.requests).padStart(13)} | ${String(counts.writes).padStart(11)} | ${String(shard.records).padStart(7)} | ${String(shard.values).padStart(13)} | ${String(Math.round(shard.bytes / 1024)).padStart(10)} |`,
    );
  }
  const usWrites = shards.filter((shard) => shard.region === "us").map((shard) => perShard.get(`us-${shard.shard}`)?.writes ?? 0);
  const largest = tenants.reduce((a, b) => (b.weight > a.weight ? b : a));
  const share = largest.weight / tenants.reduce((sum, tenant) => sum + tenant.weight, 0);
  console.log(`
us shards, writes max/min: ${(Math.max(...usWrites) / Math.max(1, Math.min(...usWrites))).toFixed(2)} (organizations are placed by count, not size)
largest organization: ${(share * 100).toFixed(1)}% of all requests, on ${largest.region}-${largest.shard}
the baseline's organization (on ${single.region}-${single.shard}) is left out of the organizations and rows above; its shard's size includes its rows
`);
  console.log(`p50 / single-key baseline: ${(percentile(dayAll, 50) / percentile(baselineAll, 50)).toFixed(2)}`);
}
