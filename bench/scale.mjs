// A synthetic multi-tenant day against the local stack, at reduced scale (docs/scale.md): many
// organizations of skewed sizes (Zipf), placed by the gateway's own least-filled-shard rule, send a
// mix of record reads, lists, queries and writes whose volume follows a day's curve. Reports p50/p99
// per route, the busiest and the quietest hour, and how organizations, requests, writes, rows and bytes
// spread over the shards of each region.
//   npm run bench -- --only=scale [--quick]
import http from "node:http";
import { regionShards } from "../packages/contracts/src/shards.ts";
import { buildDir, organizationDatabase } from "../scripts/lib/stack.mjs";
import { seededRandom } from "../test/seeded-random.ts";
import { load } from "./load.mjs";

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

/** Organizations, rows and bytes per shard, read from the databases themselves. */
async function shardFigures(stack) {
  const controlDb = await stack.mf.getD1Database("CONTROL_DB", "crm-gateway");
  const { results } = await controlDb
    .prepare("select region, shard, count(*) as organizations from organizations group by region, shard")
    .all();
  const figures = [];
  for (const [region, count] of Object.entries(regionShards)) {
    for (let shard = 1; shard <= count; shard++) {
      const db = await organizationDatabase(stack, { region, shard });
      const records = (await db.prepare("select count(*) as n from records").first()).n;
      const values = (await db.prepare("select count(*) as n from record_values").first()).n;
      const { meta } = await db.prepare("select 1").run();
      const organizations = results.find((row) => row.region === region && row.shard === shard)?.organizations ?? 0;
      figures.push({ region, shard, organizations, records, values, bytes: meta.size_after });
    }
  }
  return figures;
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
  // The baseline of this run: one demo key's cheapest authenticated read, alone, at the day's quietest and busiest concurrency.
  const baselineHeaders = { authorization: `Bearer ${stack.demo.organizations[0].users[0].apiKey}` };
  const baseline = {};
  for (const connections of [1, maxConnections])
    baseline[connections] = await load(api("/workspaces"), { connections, durationMs: 3_000, headers: baselineHeaders });
  console.log(
    `\nScale: a synthetic day of ${dayRequests} requests from ${tenantCount} organizations (Zipf 1.1 sizes; set up in ${Math.round(performance.now() - started)} ms), up to ${maxConnections} connections at the peak hour\n`,
  );

  const latencies = new Map(routeMix.map(([route]) => [route, []]));
  const perShard = new Map();
  const hours = [];
  let failures = 0;
  const agent = new http.Agent({ keepAlive: true, maxSockets: maxConnections });
  const peak = Math.max(...hourShares);
  for (const [hour, share] of hourShares.entries()) {
    const count = Math.round(dayRequests * share);
    const connections = Math.max(1, Math.round((maxConnections * share) / peak));
    const hourLatencies = [];
    let issued = 0;
    const hourStarted = performance.now();
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (issued < count) {
          issued++;
          const tenant = pick(next, tenants, (candidate) => candidate.weight);
          const [route] = pick(next, routeMix, ([, weight]) => weight);
          const [url, init] = requestFor(route, tenant, next, api);
          const response = await request(agent, url, init);
          if (response.status < 200 || response.status >= 300) {
            failures++;
            continue;
          }
          if (route === "POST /records") tenant.records.push(JSON.parse(response.text).record.id);
          latencies.get(route).push(response.ms);
          hourLatencies.push(response.ms);
          const shardKey = `${tenant.region}-${tenant.shard}`;
          const counts = perShard.get(shardKey) ?? { requests: 0, writes: 0 };
          counts.requests++;
          if (isWrite(route)) counts.writes++;
          perShard.set(shardKey, counts);
        }
      }),
    );
    hourLatencies.sort((a, b) => a - b);
    hours.push({
      hour,
      count,
      connections,
      rps: count / ((performance.now() - hourStarted) / 1000),
      p99: percentile(hourLatencies, 99),
    });
  }
  agent.destroy();

  console.log(
    `| route                       | requests | p50 (ms) | p99 (ms) |\n|-----------------------------|----------|----------|----------|`,
  );
  for (const [route, values] of latencies) {
    values.sort((a, b) => a - b);
    console.log(
      `| ${route.padEnd(27)} | ${String(values.length).padStart(8)} | ${percentile(values, 50).toFixed(2).padStart(8)} | ${percentile(values, 99).toFixed(2).padStart(8)} |`,
    );
  }
  const busiest = hours.reduce((a, b) => (b.count > a.count ? b : a));
  const quietest = hours.reduce((a, b) => (b.count < a.count ? b : a));
  console.log(`
baseline, GET /workspaces with one key alone: p50 ${baseline[1].p50.toFixed(2)} / p99 ${baseline[1].p99.toFixed(2)} ms at c=1, p50 ${baseline[maxConnections].p50.toFixed(2)} / p99 ${baseline[maxConnections].p99.toFixed(2)} ms at c=${maxConnections}
busiest hour ${busiest.hour}:00: ${busiest.count} requests at c=${busiest.connections}, ${Math.round(busiest.rps)} rps, p99 ${busiest.p99.toFixed(2)} ms
quietest hour ${quietest.hour}:00: ${quietest.count} requests at c=${quietest.connections}, ${Math.round(quietest.rps)} rps, p99 ${quietest.p99.toFixed(2)} ms
responses that were not 2xx: ${failures}
`);

  const shards = await shardFigures(stack);
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
`);
}
