// Records at scale (`--records=N`, 100 000 by default; 20 000 with --quick): the single read, a
// filtered and sorted query and creation, against the pipeline's one-read baseline.
import { organizationDatabase } from "../scripts/lib/stack.mjs";
import { load } from "./load.mjs";
import { header, objectTypeOf, row } from "./report.mjs";
import { alternatingRounds } from "./rounds.mjs";

/** Rows per insert: one recursive insert of 1 000 000 rows ends the local runtime's connection to D1. */
const seedChunk = 50_000;

/**
 * `recordCount` deals in Acme's Sales workspace (`--records=N`, 100 000 by default), written
 * straight into the region's D1 by recursive-CTE inserts of `seedChunk` records each (creating them
 * through the API would take the whole run), in the same shape the API writes: one value row per
 * field and record.
 */
export async function seedDeals(stack, auth, recordCount) {
  const api = (path) => new URL(`/api/v1${path}`, stack.url);
  const sales = stack.demo.organizations[0].workspaces[0].id;
  const deals = await objectTypeOf(stack, auth, sales, "deals");
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

/** The deals count of `--records=N`, checked. */
export function recordCountOf(argv, quick) {
  const argument = argv.find((arg) => arg.startsWith("--records="))?.slice("--records=".length);
  const count = argument ? Number(argument) : quick ? 20_000 : 100_000;
  if (!Number.isInteger(count) || count < 2) throw new Error(`--records must be an integer of at least 2, got ${argument}`);
  return count;
}

export async function recordsSection(stack, auth, { durationMs, recordCount }) {
  const { deals, stage, amount, seededMs } = await seedDeals(stack, auth, recordCount);
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
