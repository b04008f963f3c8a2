import { newId, regional } from "@crm/db";
import { and, eq } from "drizzle-orm";
import type { IncomingMessage } from "../workers/api/src/domain/inbox/store-message";
import { createWorkspaceStatements } from "../workers/api/src/domain/workspaces";
import { createMember, createOrganization, regionDb } from "./fixtures";
import { call } from "./stack";

/**
 * Inbox test data: a fresh organization whose workspace is made by the same statements as any
 * workspace (so it has the people type) and has a mailbox of its own, isolated from other tests.
 */
export async function inboxWorkspace(region: "us" | "eu" = "us") {
  const organization = await createOrganization({ region });
  const db = regionDb(region);
  const workspaceId = newId("ws");
  const mailbox = `inbox-${workspaceId.slice(-10)}@test.example`;
  await db.batch([
    db
      .insert(regional.mailboxes)
      .values({ id: newId("mbx"), workspaceId, address: mailbox, name: "Inbox", createdAt: Date.now() }),
    ...createWorkspaceStatements(db, {
      id: workspaceId,
      organizationId: organization.organizationId,
      name: "Inbox",
      members: [],
    }),
  ]);
  return { ...organization, workspaceId, mailbox, db };
}

/** A person record created through the API, to be matched by e-mail. */
export async function addPerson(key: string, workspaceId: string, name: string, email: string): Promise<string> {
  const types = (await (await call(`/crm/objects?workspaceId=${workspaceId}`, { key })).json()) as {
    objects: { id: string; slug: string }[];
  };
  const people = types.objects.find((type) => type.slug === "people");
  const response = await call("/records", { method: "POST", key, json: { objectTypeId: people?.id, fields: { name, email } } });
  if (response.status !== 201) throw new Error(`person not created: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { record: { id: string } }).record.id;
}

/** Waits until the clock moved on: messages stored one after the other then arrive at distinct times, as the inbox orders them. */
export const nextArrival = () => new Promise((resolve) => setTimeout(resolve, 2));

/** An inbound message to `mailbox` with a fresh Message-ID; `overrides` shape the case under test. */
export function inboundMessage(mailbox: string, overrides: Partial<IncomingMessage> = {}): IncomingMessage {
  return {
    mailbox,
    direction: "inbound",
    messageId: `<${crypto.randomUUID()}@mail.test.example>`,
    inReplyTo: null,
    references: [],
    from: { email: "customer@outside.example", name: "Casey Customer" },
    to: [{ email: mailbox, name: null }],
    cc: [],
    subject: "Question about pricing",
    text: "Hello, what does the team plan cost?",
    html: null,
    sentAtMs: Date.now(),
    attachments: [],
    ...overrides,
  };
}

/** A member of the inbox workspace with a role and an inbox access, and their full-scope key. */
export async function addInboxMember(
  workspace: Awaited<ReturnType<typeof inboxWorkspace>>,
  role: "member" | "viewer",
  inboxAccess: "all" | "record_read" | "record_reply",
) {
  const member = await createMember({
    organizationId: workspace.organizationId,
    region: workspace.region,
    workspaceId: workspace.workspaceId,
    role,
  });
  await workspace.db
    .update(regional.workspaceMembers)
    .set({ inboxAccess })
    .where(
      and(eq(regional.workspaceMembers.workspaceId, workspace.workspaceId), eq(regional.workspaceMembers.userId, member.userId)),
    );
  return member;
}

/** A fresh workspace of its own with its system object types' ids, so that counts, identities and search results are the test's alone. */
export async function crmWorkspace() {
  const workspace = await inboxWorkspace();
  const response = await call(`/crm/objects?workspaceId=${workspace.workspaceId}`, { key: workspace.key });
  const { objects } = (await response.json()) as { objects: { id: string; slug: string }[] };
  const typeId = (slug: string) => objects.find((object) => object.slug === slug)?.id as string;
  return { ...workspace, peopleId: typeId("people"), companiesId: typeId("companies") };
}
