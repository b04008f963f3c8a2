import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { mailWorkspace, sentMime, unsubscribeToken } from "./mail";
import { rawMcp } from "./mcp";
import { type Connection, connect, deliver, inboundPath } from "./meetings";
import { baseUrl, call, cast } from "./stack";

/**
 * Anonymous traffic never spends a tenant's budget or the platform window, and junk of one class
 * never refuses another class or a genuine caller without a bearer token (DESIGN.md section 4): a
 * signed delivery meets only its sending address's and its connection's windows, a valid unsubscribe
 * token only its recipient's; public reads, MCP discovery and failed authentications each have a
 * global window of their own. The audit's reproduction: an unsigned flood of connection URLs from six
 * addresses, then every genuine caller without a token. The files of `limits` each run in a stack of
 * their own, so the windows are this file's alone; its floods run in order, and a window an earlier
 * one filled may or may not have emptied since (a minute), so each expects nothing of those.
 */

const gateway = (exports as unknown as { default: Fetcher }).default;

interface RateLimitedBody {
  error: { code: string; details: { scope: string; limit: number } };
}

/** Sends `count` requests made by `request(i)`, `parallel` at a time, and returns their statuses and the scopes of the refusals. */
async function flood(count: number, request: (index: number) => Request, parallel = 100) {
  const statuses: number[] = [];
  const refusedBy = new Set<string>();
  for (let start = 0; start < count; start += parallel) {
    const batch = Array.from({ length: Math.min(parallel, count - start) }, (_, offset) =>
      gateway.fetch(request(start + offset)),
    );
    for (const response of await Promise.all(batch)) {
      statuses.push(response.status);
      if (response.status === 429) {
        const { error } = (await response.json()) as RateLimitedBody;
        refusedBy.add(`${error.details.scope} ${error.details.limit}`);
      } else await response.arrayBuffer();
    }
  }
  const counted = (status: number) => statuses.filter((candidate) => candidate === status).length;
  return { counted, refusedBy: [...refusedBy] };
}

/** 42 addresses, 50 requests each: under every per-address window (60), over a global one (2 000) together. */
const manyAddresses = (index: number) => `192.0.2.${100 + (index % 42)}`;

let alice: Awaited<ReturnType<typeof cast>>["alice"];
let notes: { connection: Connection; secret: string };
let calling: { connection: Connection; secret: string };
let unsubscribeLink: string;

beforeAll(async () => {
  const demo = await cast();
  alice = demo.alice;
  notes = await connect(alice.apiKey, demo.sales.id, "meeting_notes", "Flooded notetaker");
  calling = await connect(alice.apiKey, demo.sales.id, "calling", "Flooded dialer");
  // A recipient's link, as the mail the workspace sent them carries it.
  const workspace = await mailWorkspace();
  const sent = await call("/inbox/conversations", {
    method: "POST",
    key: workspace.key,
    json: {
      workspaceId: workspace.workspaceId,
      mailbox: workspace.mailbox,
      to: ["lee@customer.example"],
      subject: "News",
      text: "Hi",
    },
  });
  expect(sent.status).toBe(201);
  const { message } = (await sent.json()) as { message: { id: string } };
  const token = unsubscribeToken(await sentMime(message.id, "lee@customer.example", workspace.region));
  unsubscribeLink = `/email/unsubscribe?token=${encodeURIComponent(token)}`;
}, 60_000);

/** The statuses of every genuine caller without a bearer token, and of alice: what no anonymous flood may change. */
async function genuineCallers() {
  const meetingId = `m-${crypto.randomUUID()}`;
  const callId = `c-${crypto.randomUUID()}`;
  const [meetingNotes, call_, oneClick, confirmation, changelog, workspaces] = await Promise.all([
    deliver(inboundPath(notes.connection), notes.secret, {
      type: "meeting.scheduled",
      occurredAt: Date.now(),
      data: { meetingId, title: `Meeting ${meetingId}`, startTimeMs: Date.now() + 86_400_000 },
    }),
    deliver(inboundPath(calling.connection), calling.secret, {
      type: "call.started",
      occurredAt: Date.now(),
      data: { callId, title: `Call ${callId}` },
    }),
    call(unsubscribeLink, { method: "POST", body: new URLSearchParams({ "List-Unsubscribe": "One-Click" }) }),
    call(unsubscribeLink),
    call("/changelog"),
    call("/workspaces", { key: alice.apiKey }),
  ]);
  const challenge = await rawMcp(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }));
  const responses = { meetingNotes, call: call_, oneClick, confirmation, changelog, workspaces, challenge };
  // The MCP challenge is a 401 that points at the resource metadata, where OAuth discovery starts.
  if (challenge.status === 401) expect(challenge.headers.get("www-authenticate") ?? "").toContain("resource_metadata=");
  const statuses = Object.fromEntries(Object.entries(responses).map(([name, response]) => [name, response.status]));
  await Promise.all(Object.values(responses).map((response) => response.arrayBuffer()));
  return statuses;
}

const answered = {
  meetingNotes: 200,
  call: 200,
  oneClick: 200,
  confirmation: 200,
  changelog: 200,
  workspaces: 200,
  challenge: 401,
};

/** The genuine callers' statuses, as without any flood, but for those of windows an earlier flood of this file filled. */
async function expectAnswered(filledBefore: (keyof typeof answered)[] = []) {
  const statuses = await genuineCallers();
  for (const name of filledBefore) delete statuses[name];
  const expected: Record<string, number> = { ...answered };
  for (const name of filledBefore) delete expected[name];
  expect(statuses).toEqual(expected);
}

/** A bad token from an address of its own: a failed authentication, 401 while the window of all of them has room. */
const badToken = async () => {
  const response = await call("/workspaces", { key: "crm_not-a-key" });
  await response.arrayBuffer();
  return response.status;
};

describe("anonymous traffic by class", () => {
  it("an unsigned flood of 2 100 posts to connection URLs from six addresses refuses no genuine caller", async () => {
    await expectAnswered();
    const addresses = ["192.0.2.11", "192.0.2.12", "192.0.2.13", "192.0.2.14", "192.0.2.15", "192.0.2.16"];
    // Each address posts 350 (within its window of 600): half to real connections' URLs, half to connection ids that do not exist.
    const target = (index: number) => {
      if (Math.floor(index / 6) % 2 === 1)
        return `/integrations/meeting-notes/webhooks/conn_${crypto.randomUUID().replaceAll("-", "")}`;
      return index % 4 < 2 ? inboundPath(notes.connection) : inboundPath(calling.connection);
    };
    const { counted, refusedBy } = await flood(
      2_100,
      (index) =>
        new Request(`${baseUrl}${target(index)}`, {
          method: "POST",
          headers: { "content-type": "application/json", "cf-connecting-ip": addresses[index % 6] as string },
          body: JSON.stringify({ type: "meeting.scheduled", occurredAt: Date.now(), data: {} }),
        }),
    );
    // Unknown connections are 404 after their lookup; an unsigned post is 401 once its region refused it, and
    // counts then as a failed authentication of its address, whose window (60) refuses the rest of it: 60
    // each, or more where a busy machine took over a minute and the window slid.
    expect(counted(404)).toBe(1_050);
    expect(counted(401)).toBeGreaterThanOrEqual(6 * 60);
    expect(counted(401) + counted(429)).toBe(1_050);
    expect(refusedBy).toEqual(counted(429) > 0 ? ["ip 60"] : []);

    await expectAnswered();
    // Its 1 050 region round trips take two minutes on a busy machine.
  }, 300_000);

  it("a flood of public reads is refused by the window of public reads alone", async () => {
    const { counted, refusedBy } = await flood(
      2_100,
      (index) => new Request(`${baseUrl}/changelog`, { headers: { "cf-connecting-ip": manyAddresses(index) } }),
    );
    // 2 000 less what other isolates' leases still hold.
    expect(counted(200)).toBeGreaterThan(1_950);
    expect(counted(200) + counted(429)).toBe(2_100);
    expect(refusedBy).toEqual(["public 2000"]);

    expect((await call("/changelog")).status).toBe(429);
    await expectAnswered(["changelog"]);
    expect(await badToken()).toBe(401);
  }, 180_000);

  it("a flood of MCP discovery is refused by its own window, and a bad token still meets only its own", async () => {
    const { counted, refusedBy } = await flood(
      2_100,
      (index) =>
        new Request("http://127.0.0.1:8787/mcp", {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            "cf-connecting-ip": manyAddresses(index),
          },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize" }),
        }),
    );
    expect(counted(401)).toBeGreaterThan(1_950);
    expect(counted(401) + counted(429)).toBe(2_100);
    expect(refusedBy).toEqual(["mcp_discovery 2000"]);

    expect((await rawMcp(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }))).status).toBe(429);
    await expectAnswered(["changelog", "challenge"]);
    expect(await badToken()).toBe(401);
  }, 180_000);

  it("a flood of failed authentications is refused by its own window, and no genuine caller with it", async () => {
    const { counted, refusedBy } = await flood(
      2_100,
      (index) =>
        new Request(`${baseUrl}/workspaces`, {
          headers: { authorization: "Bearer not-a-token", "cf-connecting-ip": manyAddresses(index) },
        }),
    );
    // The unsigned posts of the first flood, refused by their region, may still count in this window.
    expect(counted(401)).toBeLessThanOrEqual(2_000);
    expect(counted(401) + counted(429)).toBe(2_100);
    expect(refusedBy).toEqual(["failed_authentication 2000"]);

    expect(await badToken()).toBe(429);
    await expectAnswered(["changelog", "challenge"]);
  }, 180_000);
});
