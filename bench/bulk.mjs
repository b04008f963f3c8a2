// Bulk records, record search and tag filters (issue 29), through the full pipeline with alice's key:
//   batches of 100 creations at c=4 against single creations at c=8 (records per second);
//   GET /records/search (20 matches) over 100 000 and then 1 000 000 records against GET /records/{id};
//   the search index's share of a single creation's p50;
//   GET /inbox/conversations?tagIds= over 100 000 conversations against GET /inbox/conversations/{id}.
// Records and conversations are seeded straight into the region's D1 in the shape the API writes.
import { buildDir, organizationDatabase } from "../scripts/lib/stack.mjs";
import { load } from "./load.mjs";
import { header, objectTypeOf, row } from "./report.mjs";
import { alternatingRounds } from "./rounds.mjs";

/** Rows per insert: one recursive insert of 1 000 000 rows ends the local runtime's connection to D1. */
const seedChunk = 50_000;

/**
 * Companies `from` to `to - 1` in Acme's Sales workspace, each with a name and an industry, and the
 * search rows the API would write for them. The industry word `<family><n % (count / 20)>`, zero-padded
 * so that no word is a prefix of another, is held by exactly 20 companies of the family.
 */
async function seedCompanies(db, { workspaceId, companies, nameField, industryField }, { from, to, family }) {
  const words = (to - from) / 20;
  const word = `'${family}' || printf('%07d', (n - ${from}) % ${words})`;
  const started = Date.now();
  for (let first = from; first < to; first += seedChunk) {
    const last = Math.min(to, first + seedChunk) - 1;
    const sequence = `with recursive seq(n) as (select ${first} union all select n + 1 from seq where n < ${last})`;
    const id = "printf('rec_bulk%09d', n)";
    await db
      .prepare(
        `${sequence} insert into records (id, workspace_id, object_type_id, created_by, created_at, updated_at) select ${id}, ?, ?, 'bench', ? + n, ? + n from seq`,
      )
      .bind(workspaceId, companies, started, started)
      .run();
    await db
      .prepare(
        `${sequence} insert into record_values (record_id, field_definition_id, position, value_text) select ${id}, ?, 0, 'Company ' || n from seq`,
      )
      .bind(nameField)
      .run();
    await db
      .prepare(
        `${sequence} insert into record_values (record_id, field_definition_id, position, value_text) select ${id}, ?, 0, ${word} from seq`,
      )
      .bind(industryField)
      .run();
    await db
      .prepare(
        `${sequence} insert into record_search_terms (record_id, object_type_id, workspace_id, name, body) select ${id}, ?, ?, 'Company ' || n, ${word} from seq`,
      )
      .bind(companies, workspaceId)
      .run();
  }
  return Date.now() - started;
}

/** What record search's index writes, switched off and on again: its table keeps no row, FTS5 gets none. */
const indexTriggers = ["record_search_terms_inserted", "record_search_terms_deleted", "record_search_terms_updated"];
async function withoutSearchIndex(db, measure) {
  const saved = await db
    .prepare(`select sql from sqlite_master where type = 'trigger' and name in (${indexTriggers.map(() => "?").join(", ")})`)
    .bind(...indexTriggers)
    .all();
  for (const name of indexTriggers) await db.prepare(`drop trigger ${name}`).run();
  await db
    .prepare("create trigger bench_no_search_rows before insert on record_search_terms begin select raise(ignore); end")
    .run();
  try {
    return await measure();
  } finally {
    await db.prepare("drop trigger bench_no_search_rows").run();
    for (const { sql } of saved.results) await db.prepare(sql).run();
  }
}

export async function bulkSection(stack, auth, { quick, durationMs }) {
  const { seedInbox } = await import(`../${buildDir}/bench-inbox/seed.mjs`);
  const api = (path) => new URL(`/api/v1${path}`, stack.url).href;
  const json = { ...auth, "content-type": "application/json" };
  const acme = stack.demo.organizations[0];
  const sales = acme.workspaces[0].id;
  const support = acme.workspaces[1];
  const db = await organizationDatabase(stack, acme);
  const { objects } = await (await fetch(api(`/crm/objects?workspaceId=${sales}`), { headers: auth })).json();
  const typeId = (slug) => objects.find((object) => object.slug === slug).id;
  const deals = typeId("deals");

  console.log(`\nBulk records, search and tags, ${durationMs / 1000} s per figure\n`);
  console.log(header);
  let single = 0;
  const singles = await load(api("/records"), {
    connections: 8,
    durationMs,
    method: "POST",
    headers: json,
    body: () => JSON.stringify({ objectTypeId: deals, fields: { name: `Single deal ${single++}`, stage: "lead" } }),
  });
  console.log(row("POST /records (one creation), c=8", singles));
  let batched = 0;
  const batches = await load(api("/records/batch"), {
    connections: 4,
    durationMs,
    method: "POST",
    headers: json,
    body: () =>
      JSON.stringify({
        objectTypeId: deals,
        operation: "create",
        records: Array.from({ length: 100 }, () => ({ fields: { name: `Batched deal ${batched++}`, stage: "lead" } })),
      }),
  });
  console.log(row("POST /records/batch (100 creations), c=4", batches));
  const batchRatio = (batches.rps * 100) / singles.rps;

  // The index's share of one creation: the same creations with the index's writes switched off.
  let indexed = 0;
  const creation = (label) => ({
    url: api("/records"),
    method: "POST",
    headers: json,
    body: () => JSON.stringify({ objectTypeId: deals, fields: { name: `${label} deal ${indexed++}`, stage: "won" } }),
  });
  const withIndex = await load(creation("Indexed").url, { connections: 1, durationMs, ...creation("Indexed") });
  console.log(row("POST /records (one creation), c=1", withIndex));
  const withoutIndex = await withoutSearchIndex(db, () =>
    load(creation("Unindexed").url, { connections: 1, durationMs, ...creation("Unindexed") }),
  );
  console.log(row("POST /records without the search index's writes, c=1", withoutIndex));

  const { data: fields } = await (await fetch(api(`/crm/objects/${typeId("companies")}/fields`), { headers: auth })).json();
  const field = (slug) => fields.find((candidate) => candidate.slug === slug).id;
  const seed = { workspaceId: sales, companies: typeId("companies"), nameField: field("name"), industryField: field("industry") };
  const sizes = quick ? [20_000, 100_000] : [100_000, 1_000_000];
  const searchRatios = [];
  let seeded = 0;
  for (const [i, size] of sizes.entries()) {
    const family = `ind${"abcdef"[i]}`;
    const seededMs = await seedCompanies(db, seed, { from: seeded, to: size, family });
    seeded = size;
    const reads = await alternatingRounds(
      {
        search: { url: api(`/records/search?workspaceId=${sales}&q=${family}0000042`), headers: auth },
        get: { url: api(`/records/rec_bulk${String(Math.floor(size / 2)).padStart(9, "0")}`), headers: auth },
      },
      { connections: 1, durationMs },
    );
    console.log(row(`GET /records/search (20 of ${size} companies; seeded in ${seededMs} ms), c=1`, reads.figure("search")));
    console.log(row(`GET /records/{id} among ${size}, c=1`, reads.figure("get")));
    searchRatios.push(`${size}: ${reads.ratio("search", "get", "p50").toFixed(2)}`);
  }

  const conversationCount = quick ? 20_000 : 100_000;
  // A whole run's inbox section seeds the same conversations first: they are used as they are.
  const { results: existing } = await db
    .prepare("select count(*) as n from conversations where workspace_id = ? and id like 'conv_bench%'")
    .bind(support.id)
    .all();
  let seededConversationsMs = 0;
  if (existing[0].n < conversationCount) {
    const people = await objectTypeOf(stack, auth, support.id, "people");
    const person = await fetch(api("/records"), {
      method: "POST",
      headers: json,
      body: JSON.stringify({ objectTypeId: people.id, fields: { name: "Bulk bench customer" } }),
    });
    seededConversationsMs = await seedInbox(db, {
      workspaceId: support.id,
      mailbox: support.mailbox,
      assigneeUserId: acme.users[0].id,
      recordId: (await person.json()).record.id,
      conversationCount,
      messagesPerConversation: 1,
    });
  }
  const tag = async (name, every) => {
    const response = await fetch(api("/inbox/tags"), {
      method: "POST",
      headers: json,
      body: JSON.stringify({ workspaceId: support.id, name, color: "#22c55e" }),
    });
    const { tag: created } = await response.json();
    await db
      .prepare(
        "insert into conversation_tags (conversation_id, tag_id, workspace_id, created_at) select id, ?, workspace_id, ? from conversations where workspace_id = ? and id like 'conv_bench%' and cast(substr(id, 11) as integer) % ? = 0",
      )
      .bind(created.id, Date.now(), support.id, every)
      .run();
    return created.id;
  };
  const rare = await tag(`Rare ${Date.now()}`, conversationCount / 20);
  const common = await tag(`Common ${Date.now()}`, 10);
  const list = (tagId) => ({ url: api(`/inbox/conversations?workspaceId=${support.id}&tagIds=${tagId}`), headers: auth });
  const tagged = await alternatingRounds(
    {
      rare: list(rare),
      common: list(common),
      get: { url: api(`/inbox/conversations/conv_bench${String(conversationCount / 2).padStart(8, "0")}`), headers: auth },
    },
    { connections: 1, durationMs },
  );
  console.log(
    row(
      `GET /inbox/conversations?tagIds= (20 of ${conversationCount}; seeded in ${seededConversationsMs} ms)`,
      tagged.figure("rare"),
    ),
  );
  console.log(row(`GET /inbox/conversations?tagIds= (a tenth of ${conversationCount})`, tagged.figure("common")));
  console.log(row("GET /inbox/conversations/{id}, c=1", tagged.figure("get")));

  console.log(`
batch records per second / single creations per second: ${batchRatio.toFixed(1)} (target >= 10)
search p50 / GET /records/{id} p50 by size (median of rounds; target <= 3, flat): ${searchRatios.join("; ")}
creation p50 with the index / without: ${(withIndex.p50 / withoutIndex.p50).toFixed(2)} (target <= 1.2)
tag list p50 / GET conversation p50 (target <= 3): rare ${tagged.ratio("rare", "get", "p50").toFixed(2)}; common ${tagged.ratio("common", "get", "p50").toFixed(2)}
`);
}
