import { env } from "cloudflare:test";
import { asc, desc } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { describe, expect, it } from "vitest";
import { type MeetingFilter, meetingOrder, meetingPage } from "../workers/api/src/domain/meetings/meetings";
import { type ErrorBody, expectStatus, objectTypesOf, unique } from "./crm";
import { createOrganization } from "./fixtures";
import { connect, createPerson, deliver, expectReceived, inboundPath, type Meeting, meetingsOf } from "./meetings";
import { call, cast } from "./stack";

/** A fresh organization whose one workspace holds meetings starting at the given times (in this order of delivery). */
async function workspaceWithMeetings(starts: number[]) {
  const organization = await createOrganization({ workspaceCount: 1 });
  const workspaceId = organization.workspaceIds[0] as string;
  const { connection, secret } = await connect(organization.key, workspaceId);
  for (const [i, startTimeMs] of starts.entries()) {
    const event = {
      type: "meeting.scheduled",
      occurredAt: Date.now(),
      data: { meetingId: `m-${i}`, title: `M${i}`, startTimeMs },
    };
    await expectReceived(await deliver(inboundPath(connection), secret, event));
  }
  return { key: organization.key, workspaceId, connection, secret };
}

describe("GET /meetings", () => {
  it("lists newest start first, then by id, and pages without gaps or repeats", async () => {
    const base = Date.now();
    const starts = [base + 5, base + 1, base + 3, base + 3, base + 9, base + 7];
    const { key, workspaceId } = await workspaceWithMeetings(starts);
    const all = await meetingsOf(key, workspaceId);
    expect(all.map((meeting) => meeting.startTimeMs)).toEqual([...starts].sort((a, b) => b - a));
    const tied = all.filter((meeting) => meeting.startTimeMs === base + 3).map((meeting) => meeting.id);
    expect(tied).toEqual([...tied].sort().reverse());
    const paged: Meeting[] = [];
    let cursor: string | null = null;
    do {
      const page: { data: Meeting[]; pagination: { cursor: string | null; hasMore: boolean } } = await expectStatus(
        200,
        `/meetings?workspaceId=${workspaceId}&limit=4${cursor ? `&cursor=${cursor}` : ""}`,
        { key },
      );
      paged.push(...page.data);
      cursor = page.pagination.cursor;
    } while (cursor);
    expect(paged.map((meeting) => meeting.id)).toEqual(all.map((meeting) => meeting.id));
  });

  it("filters by eventState and start time bounds (exclusive)", async () => {
    const base = Date.now();
    const { key, workspaceId, connection, secret } = await workspaceWithMeetings([base + 1_000, base + 2_000, base + 3_000]);
    const cancel = { type: "meeting.cancelled", occurredAt: Date.now() + 1, data: { meetingId: "m-1" } };
    await expectReceived(await deliver(inboundPath(connection), secret, cancel));
    const titles = async (query: string) => (await meetingsOf(key, workspaceId, query)).map((meeting) => meeting.title);
    expect(await titles("&eventState=cancelled")).toEqual(["M1"]);
    expect(await titles("&eventState=active")).toEqual(["M2", "M0"]);
    expect(await titles(`&startAfterMs=${base + 1_000}`)).toEqual(["M2", "M1"]);
    expect(await titles(`&startBeforeMs=${base + 3_000}&startAfterMs=${base}`)).toEqual(["M1", "M0"]);
  });

  it("filters by a record among the resolved participants", async () => {
    const { alice, sales } = await cast();
    const peopleTypeId = (await objectTypesOf(alice.apiKey, sales.id)).find((type) => type.slug === "people")?.id as string;
    const person = await createPerson(alice.apiKey, peopleTypeId, "Rita Record");
    const { connection, secret } = await connect(alice.apiKey, sales.id);
    const id = `with-record-${unique()}`;
    const event = {
      type: "meeting.scheduled",
      occurredAt: Date.now(),
      data: { meetingId: id, title: id, attendees: [{ email: person.email }] },
    };
    await expectReceived(await deliver(inboundPath(connection), secret, event));
    const found = await meetingsOf(alice.apiKey, sales.id, `&recordId=${person.id}`);
    expect(found.map((meeting) => meeting.title)).toEqual([id]);
    expect(found[0]?.participants[0]?.resolvedRecordId).toBe(person.id);
  });

  it("refuses bad queries with 400 and a viewer may read (meetings:read)", async () => {
    const { alice, carol, sales } = await cast();
    for (const query of [
      "",
      `workspaceId=${sales.id}&eventState=gone`,
      `workspaceId=${sales.id}&startAfterMs=-1`,
      `workspaceId=${sales.id}&limit=0`,
    ]) {
      const body = await expectStatus<ErrorBody>(400, `/meetings?${query}`, { key: alice.apiKey });
      expect(body.error.code).toBe("invalid_request");
    }
    await expectStatus(200, `/meetings?workspaceId=${sales.id}`, { key: carol.apiKey });
    const unknown = await call("/meetings/mtg_01unknown000000000000000", { key: alice.apiKey });
    expect(unknown.status).toBe(404);
  });

  it("is served by an index in list order: no scan of the workspace's meetings, no sort", async () => {
    const db = drizzle(env.US_DB_1);
    const orderBy = meetingOrder.map((key) => (key.direction === "asc" ? asc(key.column) : desc(key.column)));
    const plan = async (filter: Partial<MeetingFilter>) => {
      const { sql, params } = meetingPage(
        db,
        { workspaceId: "ws_plan00", ...filter },
        { after: undefined, orderBy, limit: 51 },
      ).toSQL();
      const rows = await env.US_DB_1.prepare(`explain query plan ${sql}`)
        .bind(...params)
        .all<{ detail: string }>();
      return rows.results.map((row) => row.detail).join("\n");
    };
    const served = (text: string, index: string) => {
      expect(text).toMatch(new RegExp(`SEARCH meetings USING (COVERING )?INDEX ${index} `));
      expect(text).not.toMatch(/SCAN meetings/);
      expect(text).not.toMatch(/TEMP B-TREE/);
    };
    served(await plan({}), "meetings_workspace_start");
    served(await plan({ startAfterMs: 1, startBeforeMs: 2 }), "meetings_workspace_start");
    served(await plan({ eventState: "active" }), "meetings_workspace_state_start");
    const byRecord = await plan({ recordId: "rec_plan00" });
    served(byRecord, "meetings_workspace_start");
    expect(byRecord).toMatch(/SEARCH meeting_participants (EXISTS )?USING (COVERING )?INDEX meeting_participants_record/);
  });
});
