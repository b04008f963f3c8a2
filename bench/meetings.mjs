import { Webhook } from "standardwebhooks";
import { organizationDatabase } from "../scripts/lib/stack.mjs";
import { load } from "./load.mjs";
import { header, objectTypeOf, row } from "./report.mjs";

/**
 * Signed provider events through the inbound route (signature, dedupe row, meeting upsert,
 * participant matched to a person record, outbox event) against record creations in the same run;
 * then the meeting list over 50 000 meetings against reading one meeting.
 */
export async function meetingsSection(stack, auth, { quick, durationMs }) {
  const meetingCount = quick ? 10_000 : 50_000;
  const api = (path) => new URL(`/api/v1${path}`, stack.url).href;
  const json = { ...auth, "content-type": "application/json" };
  const sales = stack.demo.organizations[0].workspaces[0].id;
  const created = await fetch(api("/integrations/connections"), {
    method: "POST",
    headers: json,
    body: JSON.stringify({ workspaceId: sales, provider: "meeting_notes", name: "Bench notetaker" }),
  });
  const { connection, secret } = await created.json();
  const people = await objectTypeOf(stack, auth, sales, "people");
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
