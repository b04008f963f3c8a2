import { regional } from "@crm/db";
import { eq } from "drizzle-orm";
import type { Database } from "../database";
import { receiveMail } from "../domain/inbox/mail/inbound";
import { insertRecord } from "../domain/records/write";

/**
 * The demo content of a seeded workspace (DESIGN.md section 13): a few companies, people and
 * deals and conversations in its mailbox, written through the same domain code as API requests, and the
 * conversations as raw mail through the inbound entry (so their events are in the outbox too). Runs only
 * for a workspace the seed has just created. Meetings, and the tasks their action items become, come
 * afterwards through the real inbound route (the gateway's seed/demo-meetings.ts).
 */
export async function seedDemoContent(
  db: Database,
  bucket: R2Bucket,
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

  await seedConversations(db, bucket, workspace, {
    peter: `peter@${suffix}.example`,
    gavin: `gavin@${suffix}.example`,
    suffix,
    now: Date.now(),
  });
}

interface DemoMail {
  messageId: string;
  from: string;
  to: string;
  subject: string;
  date: number;
  text: string;
  inReplyTo?: string;
  attachment?: { filename: string; contentType: string; content: string };
}

/** A raw RFC 5322 message as a mail client writes it: what Email Routing hands the gateway. */
function rawMail(mail: DemoMail): string {
  const headers = [
    `From: ${mail.from}`,
    `To: ${mail.to}`,
    `Subject: ${mail.subject}`,
    `Date: ${new Date(mail.date).toUTCString()}`,
    `Message-ID: <${mail.messageId}>`,
    ...(mail.inReplyTo ? [`In-Reply-To: <${mail.inReplyTo}>`, `References: <${mail.inReplyTo}>`] : []),
    "MIME-Version: 1.0",
  ];
  const text = ["Content-Type: text/plain; charset=utf-8", "", mail.text];
  if (!mail.attachment) return [...headers, ...text, ""].join("\r\n");
  const { filename, contentType, content } = mail.attachment;
  return [
    ...headers,
    'Content-Type: multipart/mixed; boundary="demo-part"',
    "",
    "--demo-part",
    ...text,
    "--demo-part",
    `Content-Type: ${contentType}; name="${filename}"`,
    `Content-Disposition: attachment; filename="${filename}"`,
    "Content-Transfer-Encoding: base64",
    "",
    btoa(content),
    "--demo-part--",
    "",
  ].join("\r\n");
}

/**
 * Three conversations, delivered as raw mail through the region's inbound entry like any mail:
 * Peter (a person record) asks and the team's answer (sent from its own client, so From is the
 * mailbox and it is stored as outbound) follows, linked to him; Gavin (a person too) asks about his
 * pilot; a stranger sends a proposal as an attachment, linked to no record (what `record_read`
 * members cannot see).
 */
async function seedConversations(
  db: Database,
  bucket: R2Bucket,
  workspace: { id: string; mailbox: string },
  { peter, gavin, suffix, now }: { peter: string; gavin: string; suffix: string; now: number },
) {
  const id = (name: string) => `${name}-${suffix}@demo.example`;
  const mails: DemoMail[] = [
    {
      messageId: id("renewal-question"),
      from: `Peter Gibbons <${peter}>`,
      to: workspace.mailbox,
      subject: "Question about the renewal",
      date: now - 3_600_000,
      text: "Hi, could you send us the renewal proposal before the end of the month?",
    },
    {
      messageId: id("renewal-answer"),
      from: workspace.mailbox,
      to: `Peter Gibbons <${peter}>`,
      subject: "Re: Question about the renewal",
      date: now - 1_800_000,
      text: "Hi Peter, the proposal is on its way this week.",
      inReplyTo: id("renewal-question"),
    },
    {
      messageId: id("pilot-timeline"),
      from: `Gavin Belson <${gavin}>`,
      to: workspace.mailbox,
      subject: "Pilot timeline",
      date: now - 900_000,
      text: "When can the pilot start? We would like to begin next month.",
    },
    {
      messageId: id("partnership"),
      from: "Sam Partner <someone@partner.example>",
      to: workspace.mailbox,
      subject: "Partnership idea",
      date: now,
      text: "Hello, we would like to talk about a partnership. Our proposal is attached.",
      attachment: { filename: "proposal.txt", contentType: "text/plain", content: "Partnership proposal: joint webinar series." },
    },
  ];
  for (const mail of mails)
    await receiveMail(db, bucket, workspace.mailbox, new TextEncoder().encode(rawMail(mail)).buffer as ArrayBuffer, {
      nullSender: false,
      // The answer (From: the mailbox) is the team's own mail, sent before the inbox existed.
      fromOutside: mail.from !== workspace.mailbox,
    });
}
