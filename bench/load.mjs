// A closed-loop HTTP load generator with sub-millisecond latencies (autocannon rounds to whole
// milliseconds, too coarse for figures around 1 ms): `connections` keep-alive clients each send
// one request after another for `durationMs`.
import http from "node:http";

function send(agent, url, { method = "GET", headers = {}, body }) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const request = http.request(url, { agent, method, headers }, (response) => {
      response.resume();
      response.on("end", () => resolve({ status: response.statusCode, ms: performance.now() - started }));
    });
    request.on("error", reject);
    request.end(body);
  });
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/**
 * `body` may be a function, called for each request (for unique values); `headers` too, called with
 * that request's body (for a signature over it).
 */
export async function load(url, { connections, durationMs, method = "GET", headers = {}, body, warmupMs = 500 }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const latencies = [];
  let failures = 0;
  let sent = 0;
  const warmupEnds = performance.now() + warmupMs;
  const ends = warmupEnds + durationMs;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < ends) {
        const payload = typeof body === "function" ? body() : body;
        const requestHeaders = typeof headers === "function" ? headers(payload) : headers;
        const { status, ms } = await send(agent, url, { method, headers: requestHeaders, body: payload });
        sent++;
        if (performance.now() < warmupEnds) continue;
        if (status < 200 || status >= 300) failures++;
        latencies.push(ms);
      }
    }),
  );
  agent.destroy();
  if (failures > 0) throw new Error(`${url}: ${failures} responses were not 2xx`);
  latencies.sort((a, b) => a - b);
  return {
    rps: latencies.length / (durationMs / 1000),
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    requests: latencies.length,
    /** Warm-up included: what per-request counts (Durable Object calls) divide by. */
    sent,
  };
}
