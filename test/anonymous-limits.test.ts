import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { connect, inboundPath } from "./meetings";
import { baseUrl, call, cast } from "./stack";

/**
 * Anonymous traffic never spends a tenant's budget or the platform window (DESIGN.md section 4):
 * requests without a valid credential meet windows of their own, per client address and one for all
 * anonymous traffic. The audit's reproduction: an unsigned flood from four addresses, then alice.
 */

const gateway = (exports as unknown as { default: Fetcher }).default;

interface RateLimitedBody {
  error: { code: string; details: { scope: string; limit: number } };
}

/** Sends `count` requests made by `request(i)`, `parallel` at a time, and returns their statuses and the last refusal. */
async function flood(count: number, request: (index: number) => Request, parallel = 100) {
  const statuses: number[] = [];
  let refusal: RateLimitedBody | null = null;
  for (let start = 0; start < count; start += parallel) {
    const batch = Array.from({ length: Math.min(parallel, count - start) }, (_, offset) =>
      gateway.fetch(request(start + offset)),
    );
    for (const response of await Promise.all(batch)) {
      statuses.push(response.status);
      if (response.status === 429) refusal = (await response.json()) as RateLimitedBody;
      else await response.arrayBuffer();
    }
  }
  return { statuses, refusal };
}

describe("anonymous traffic", () => {
  it("an unsigned flood of 2 100 posts from four addresses leaves alice's requests answered", async () => {
    const { alice, sales } = await cast();
    const { connection } = await connect(alice.apiKey, sales.id, "meeting_notes", "Flooded notetaker");
    const addresses = ["192.0.2.11", "192.0.2.12", "192.0.2.13", "192.0.2.14"];
    // Half to a real connection's URL, half to connection ids that do not exist (each its own window before the fix).
    const target = (index: number) =>
      index % 2 === 0
        ? inboundPath(connection)
        : `/integrations/meeting-notes/webhooks/conn_${crypto.randomUUID().replaceAll("-", "")}`;
    const { statuses, refusal } = await flood(
      2_100,
      (index) =>
        new Request(`${baseUrl}${target(index)}`, {
          method: "POST",
          headers: { "content-type": "application/json", "cf-connecting-ip": addresses[index % 4] as string },
          body: JSON.stringify({ type: "meeting.scheduled", occurredAt: Date.now(), data: {} }),
        }),
    );
    // Every post the anonymous windows let through is refused as unsigned (401) or unknown (404); the
    // rest meet the window of all anonymous traffic (2 000, less what leases still hold), never the platform's.
    const answered = statuses.filter((status) => status === 401 || status === 404).length;
    expect(answered).toBeGreaterThan(1_950);
    expect(answered).toBeLessThanOrEqual(2_000);
    expect(statuses.filter((status) => status === 429)).toHaveLength(2_100 - answered);
    expect(refusal?.error.details).toMatchObject({ scope: "anonymous", limit: 2_000 });

    const workspaces = await call("/workspaces", { key: alice.apiKey });
    expect(workspaces.status).toBe(200);
    // Public routes and failed authentications share the anonymous window: the flood refuses them too.
    expect((await call("/changelog")).status).toBe(429);
  }, 120_000);
});
