import { regional } from "@crm/db";
import { eq } from "drizzle-orm";
import { storeMessage } from "../domain/inbox/store-message";
import { insertRecord } from "../domain/records/write";
import type { Database } from "../env";

/**
 * The demo content of a seeded workspace (DESIGN.md section 13): a few companies, people and
 * deals and conversations in its mailbox, written through the same domain code as API requests and inbound
 * mail (so their events are in the outbox too). Runs only for a workspace the seed has just created.
 * Meetings, and the tasks their action items become, come afterwards through the real inbound route
 * (the gateway's seed/demo-meetings.ts).
 */
export async function seedDemoContent(
  db: Database,
  workspace: { id: string; organizationId: string; ownerId: string; mailbox: string },
) {
  const author = { organizationId: workspace.organizationId, actor: { type: "user" as const, id: workspace.ownerId } };
  const types = await db.select().from(regional.objectTypes).where(eq(regional.objectTypes.workspaceId, workspace.id));
  const type = (slug: string) => types.find((candidate) => candidate.slug === slug) as (typeof types)[number];
  const suffix = workspace.id.slice(-6);
  const company = (name: string, domain: string) =>
    insertRecord(db, author, type("companies"), { name, domain: `${domain}-${suffix}.example`, industry: "Software" });
  const initech = await company("Initech", "initech");
  const hooli = await company("Hooli", "hooli");
  const person = (name: string, email: string, companyId: string, jobTitle: string) =>
    insertRecord(db, author, type("people"), {
      name,
      email: `${email}@${suffix}.example`,
      company: companyId,
      job_title: jobTitle,
    });
  await person("Peter Gibbons", "peter", initech.id, "Engineer");
  await person("Gavin Belson", "gavin", hooli.id, "CEO");
  await insertRecord(db, author, type("deals"), {
    name: "Initech renewal",
    stage: "proposal",
    amount: 24000,
    company: initech.id,
    close_date: "2027-02-01",
  });
  await insertRecord(db, author, type("deals"), { name: "Hooli pilot", stage: "qualified", amount: 8000, company: hooli.id });

  await seedConversations(db, workspace, { peter: `peter@${suffix}.example`, suffix, now: Date.now() });
}

/**
 * Two conversations: Peter (a person record) asks and the workspace answers, so the thread is linked
 * to him; a stranger writes once, so one conversation is linked to no record (what `record_read`
 * members cannot see).
 */
async function seedConversations(
  db: Database,
  workspace: { id: string; mailbox: string },
  { peter, suffix, now }: { peter: string; suffix: string; now: number },
) {
  const mailbox = { email: workspace.mailbox, name: null };
  const message = (id: string, sentAtMs: number) => ({
    mailbox: workspace.mailbox,
    messageId: `${id}-${suffix}@demo.example`,
    cc: [],
    html: null,
    sentAtMs,
    attachments: [],
  });
  const question = await storeMessage(db, {
    ...message("renewal-question", now - 3_600_000),
    direction: "inbound",
    inReplyTo: null,
    references: [],
    from: { email: peter, name: "Peter Gibbons" },
    to: [mailbox],
    subject: "Question about the renewal",
    text: "Hi, could you send us the renewal proposal before the end of the month?",
  });
  await storeMessage(db, {
    ...message("renewal-answer", now - 1_800_000),
    direction: "outbound",
    inReplyTo: `renewal-question-${suffix}@demo.example`,
    references: [`renewal-question-${suffix}@demo.example`],
    from: mailbox,
    to: [{ email: peter, name: "Peter Gibbons" }],
    subject: "Re: Question about the renewal",
    text: "Hi Peter, the proposal is on its way this week.",
    conversationId: question.conversationId,
  });
  await storeMessage(db, {
    ...message("partnership", now),
    direction: "inbound",
    inReplyTo: null,
    references: [],
    from: { email: "someone@partner.example", name: "Sam Partner" },
    to: [mailbox],
    subject: "Partnership idea",
    text: "Hello, we would like to talk about a partnership.",
  });
}
