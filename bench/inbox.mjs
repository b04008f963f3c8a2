import { buildDir, organizationDatabase } from "../scripts/lib/stack.mjs";
import { load } from "./load.mjs";
import { header, objectTypeOf, row } from "./report.mjs";
import { alternatingRounds } from "./rounds.mjs";

/**
 * 100 000 conversations with 3 messages each in Acme's Support workspace, written straight into the
 * us region's D1 (bench/inbox-seed.ts), then the list's three access paths through the full
 * pipeline with alice's key, each against reading one conversation: full-text search, a view
 * (the system view "Assigned to me": open and assigned to alice, a quarter of them), and
 * `hasLinkedRecords=true` (a third).
 */
export async function inboxSection(stack, auth, { quick, durationMs }) {
  const conversationCount = quick ? 20_000 : 100_000;
  const api = (path) => new URL(`/api/v1${path}`, stack.url).href;
  const json = { ...auth, "content-type": "application/json" };
  const acme = stack.demo.organizations[0];
  const support = acme.workspaces[1];
  const alice = acme.users[0];
  const people = await objectTypeOf(stack, auth, support.id, "people");
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
