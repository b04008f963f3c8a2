// A webhook receiver for the benchmark: verifies every delivery's signature with the reference
// `standardwebhooks` library, counts distinct webhook-ids, and tells when a count is reached;
// `onDelivery(event, at, webhookId)` sees each verified delivery's event with its arrival time and webhook-id.
import http from "node:http";
import { Webhook } from "standardwebhooks";

export async function startReceiver() {
  let verifier = null;
  const seen = new Set();
  let failures = 0;
  const waiters = [];
  let onDelivery = null;
  const server = http.createServer((request, response) => {
    const chunks = [];
    request.on("data", (chunk) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      try {
        const event = verifier.verify(body, request.headers);
        seen.add(request.headers["webhook-id"]);
        onDelivery?.(event, performance.now(), request.headers["webhook-id"]);
      } catch {
        failures++;
      }
      response.writeHead(200).end();
      for (const waiter of waiters.filter((candidate) => seen.size >= candidate.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(performance.now());
      }
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    useSecret(secret) {
      verifier = new Webhook(secret);
      seen.clear();
      failures = 0;
    },
    /** Resolves with the time the `count`-th distinct delivery arrived. */
    until: (count) =>
      new Promise((resolve) => (seen.size >= count ? resolve(performance.now()) : waiters.push({ count, resolve }))),
    set onDelivery(callback) {
      onDelivery = callback;
    },
    get failures() {
      return failures;
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
