import { newId, regional } from "@crm/db";
import { eq } from "drizzle-orm";
import { insertRecord } from "../domain/records/write";
import { createSourceManagedTask } from "../domain/tasks/service";
import type { Database } from "../env";

/**
 * The demo content of a seeded workspace (DESIGN.md section 13): a few companies, people and
 * deals, a conversation, and a task from a meeting, written through the same domain code as API requests (so
 * their events are in the outbox too). Runs only for a workspace the seed has just created.
 */
export async function seedDemoContent(db: Database, workspace: { id: string; organizationId: string; ownerId: string }) {
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
  const peter = await person("Peter Gibbons", "peter", initech.id, "Engineer");
  await person("Gavin Belson", "gavin", hooli.id, "CEO");
  await insertRecord(db, author, type("deals"), {
    name: "Initech renewal",
    stage: "proposal",
    amount: 24000,
    company: initech.id,
    close_date: "2027-02-01",
  });
  await insertRecord(db, author, type("deals"), { name: "Hooli pilot", stage: "qualified", amount: 8000, company: hooli.id });

  const now = Date.now();
  await db.insert(regional.conversations).values({
    id: newId("conv", now),
    workspaceId: workspace.id,
    channel: "email",
    subject: "Question about the renewal",
    lastMessageAtMs: now,
    isClosed: false,
    createdAt: now,
    updatedAt: now,
  });
  await createSourceManagedTask(db, {
    workspaceId: workspace.id,
    recordId: peter.id,
    title: "Send the renewal proposal",
    descriptionHtml: "<p>Action item from the kickoff meeting</p>",
    dueAt: now + 7 * 86_400_000,
    assigneeUserIds: [workspace.ownerId],
    source: { resourceType: "meeting", resourceId: `mtg_demo${suffix}` },
  });
}
