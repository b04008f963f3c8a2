import { env } from "cloudflare:test";
import { control, regional } from "@crm/db";
import { and, count, eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { describe, expect, it } from "vitest";
import { countRows, regionDb } from "./fixtures";
import { call, cast, demo, seed } from "./stack";

describe("GET /workspaces", () => {
  it("lists the workspaces of alice's organization with her role", async () => {
    const { alice, acme } = await cast();
    const response = await call("/workspaces", { key: alice.apiKey });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      data: { name: string; role: string; isInheritedAccess: boolean; organizationId: string }[];
    };
    expect(body.data.map((workspace) => [workspace.name, workspace.role, workspace.isInheritedAccess])).toEqual([
      ["Sales", "owner", false],
      ["Support", "owner", true],
    ]);
    expect(body.data.every((workspace) => workspace.organizationId === acme.id)).toBe(true);
  });

  it("serves Globex from the eu region, whose database alone holds it", async () => {
    const { dave, globex } = await cast();
    const response = await call("/workspaces", { key: dave.apiKey });
    const body = (await response.json()) as { data: { id: string; name: string }[] };
    expect(body.data.map((workspace) => workspace.name)).toEqual(["Operations"]);
    const id = body.data[0]?.id;
    expect(await countRows("eu", regional.workspaces, eq(regional.workspaces.id, id as string))).toBe(1);
    expect(await countRows("us", regional.workspaces, eq(regional.workspaces.organizationId, globex.id))).toBe(0);
  });
});

describe("the demo seed", () => {
  it("fills the owners' workspaces with records, conversations, and meetings whose action items became tasks", async () => {
    const { alice, sales } = await cast();
    const { objects } = (await (await call(`/crm/objects?workspaceId=${sales.id}`, { key: alice.apiKey })).json()) as {
      objects: { id: string; slug: string }[];
    };
    const names = async (slug: string) => {
      const objectTypeId = objects.find((object) => object.slug === slug)?.id;
      const page = (await (await call(`/records?objectTypeId=${objectTypeId}&limit=100`, { key: alice.apiKey })).json()) as {
        data: { fields: { name: string } }[];
      };
      return page.data.map((record) => record.fields.name);
    };
    expect(await names("companies")).toEqual(expect.arrayContaining(["Initech", "Hooli"]));
    expect(await names("people")).toEqual(expect.arrayContaining(["Peter Gibbons", "Gavin Belson"]));
    expect(await names("deals")).toEqual(expect.arrayContaining(["Initech renewal", "Hooli pilot"]));
    // Meetings came through the inbound route: one with a transcript whose action items became tasks.
    const meetings = (await (await call(`/meetings?workspaceId=${sales.id}`, { key: alice.apiKey })).json()) as {
      data: { id: string; title: string; hasTranscript: boolean; eventState: string; callStatus: string | null }[];
    };
    const kickoff = meetings.data.find((meeting) => meeting.title === "Renewal kickoff with Initech");
    expect(kickoff?.hasTranscript).toBe(true);
    expect(meetings.data.find((meeting) => meeting.title === "Quarterly planning")?.eventState).toBe("cancelled");
    expect(meetings.data.find((meeting) => meeting.title === "Call with Gavin Belson")?.callStatus).toBe("ended");
    const tasks = (await (await call(`/tasks?workspaceId=${sales.id}&limit=100`, { key: alice.apiKey })).json()) as {
      data: { title: string; source: unknown }[];
    };
    const fromKickoff = tasks.data.filter(
      (task) => JSON.stringify(task.source) === JSON.stringify({ resourceType: "meeting", resourceId: kickoff?.id }),
    );
    expect(fromKickoff.map((task) => task.title).sort()).toEqual(["Schedule the pricing review", "Send the renewal proposal"]);
    const conversations = await regionDb("us")
      .select()
      .from(regional.conversations)
      .where(eq(regional.conversations.workspaceId, sales.id));
    // Each once, however often the seed ran; other tests' mail to Sales (they share the stack) aside.
    const seeded = ["Question about the renewal", "Pilot timeline", "Partnership idea"];
    expect(
      conversations
        .filter(({ subject }) => seeded.includes(subject))
        .map(({ subject, mailbox, hasLinkedRecords }) => ({ subject, mailbox, hasLinkedRecords })),
    ).toEqual(
      expect.arrayContaining([
        { subject: "Question about the renewal", mailbox: "sales@acme.example", hasLinkedRecords: true },
        { subject: "Pilot timeline", mailbox: "sales@acme.example", hasLinkedRecords: true },
        { subject: "Partnership idea", mailbox: "sales@acme.example", hasLinkedRecords: false },
      ]),
    );
    expect(conversations.filter(({ subject }) => seeded.includes(subject))).toHaveLength(3);
  });

  it("gives each workspace the mailbox of DESIGN.md section 13, in its region's shard and in the control map", async () => {
    const { organizations } = await demo();
    const mailboxes = organizations.flatMap((organization) =>
      organization.workspaces.map((workspace) => ({
        ...workspace,
        organizationId: organization.id,
        region: organization.region,
        shard: organization.shard,
      })),
    );
    expect(mailboxes.map((workspace) => workspace.mailbox)).toEqual([
      "sales@acme.example",
      "support@acme.example",
      "ops@globex.example",
      "hello@initech.example",
    ]);
    for (const { id, mailbox, organizationId, region, shard } of mailboxes) {
      const [routed] = await drizzle(env.CONTROL_DB)
        .select()
        .from(control.mailboxes)
        .where(eq(control.mailboxes.address, mailbox));
      expect(routed).toMatchObject({ organizationId, workspaceId: id });
      const [stored] = await regionDb(region, shard)
        .select()
        .from(regional.mailboxes)
        .where(eq(regional.mailboxes.address, mailbox));
      expect(stored?.workspaceId).toBe(id);
    }
  });

  it("seeds Initech beside Acme in the us region but on the other shard, owned by erin, with records of its own", async () => {
    const { acme, initech, erin } = await cast();
    expect([acme.region, acme.shard, initech.region, initech.shard]).toEqual(["us", 1, "us", 2]);
    const workspaces = (await (await call("/workspaces", { key: erin.apiKey })).json()) as {
      data: { id: string; name: string; role: string; organizationId: string }[];
    };
    expect(workspaces.data.map((workspace) => [workspace.name, workspace.role, workspace.organizationId])).toEqual([
      ["Main", "owner", initech.id],
    ]);
    const main = workspaces.data[0]?.id as string;
    expect(await countRows("us", regional.workspaces, eq(regional.workspaces.organizationId, initech.id), initech.shard)).toBe(1);
    const { objects } = (await (await call(`/crm/objects?workspaceId=${main}`, { key: erin.apiKey })).json()) as {
      objects: { id: string; slug: string }[];
    };
    const companies = objects.find((object) => object.slug === "companies")?.id;
    const page = (await (await call(`/records?objectTypeId=${companies}`, { key: erin.apiKey })).json()) as {
      data: { fields: { name: string } }[];
    };
    expect(page.data.map((record) => record.fields.name)).toEqual(expect.arrayContaining(["Initech", "Hooli"]));
  });

  it("makes erin a member of Globex too, listed there without a key: her key is for Initech", async () => {
    const { globex, initech, erin } = await cast();
    expect(globex.users.find((user) => user.id === erin.id)).toEqual({
      id: erin.id,
      name: erin.name,
      email: erin.email,
      organizationRole: "member",
    });
    const memberships = await drizzle(env.CONTROL_DB)
      .select({ organizationId: control.organizationMembers.organizationId, role: control.organizationMembers.role })
      .from(control.organizationMembers)
      .where(eq(control.organizationMembers.userId, erin.id));
    expect(memberships).toEqual(
      expect.arrayContaining([
        { organizationId: globex.id, role: "member" },
        { organizationId: initech.id, role: "owner" },
      ]),
    );
    expect(memberships).toHaveLength(2);
    const [globexMembership] = await regionDb("eu")
      .select({ role: regional.workspaceMembers.role })
      .from(regional.workspaceMembers)
      .where(
        and(
          eq(regional.workspaceMembers.workspaceId, globex.workspaces[0]?.id as string),
          eq(regional.workspaceMembers.userId, erin.id),
        ),
      );
    expect(globexMembership).toEqual({ role: "member" });
  });

  it("is idempotent: seeding again adds no rows and describes the same demo", async () => {
    const first = await demo();
    const rows = async () => ({
      workspaces: await countRows("us", regional.workspaces),
      records: await countRows("us", regional.records),
      members: (await drizzle(env.CONTROL_DB).select({ n: count() }).from(control.organizationMembers))[0]?.n,
    });
    const before = await rows();
    expect(await seed()).toEqual(first);
    expect(await rows()).toEqual(before);
  });

  it("gives a workspace seeded by an earlier seed the members added since", async () => {
    const { globex, erin } = await cast();
    const erinInGlobex = and(
      eq(regional.workspaceMembers.workspaceId, globex.workspaces[0]?.id as string),
      eq(regional.workspaceMembers.userId, erin.id),
    );
    await regionDb("eu").delete(regional.workspaceMembers).where(erinInGlobex);
    await seed();
    expect(
      await regionDb("eu").select({ role: regional.workspaceMembers.role }).from(regional.workspaceMembers).where(erinInGlobex),
    ).toEqual([{ role: "member" }]);
  });
});
