import { env } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import type { ActorContext } from "@crm/contracts";
import { regional } from "@crm/db";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { gatewayDirectory } from "../workers/api/src/directory";
import { composeConversationOf, type Outbox } from "../workers/api/src/domain/inbox/mail/send";
import { countRows, regionDb } from "./fixtures";
import { inboxWorkspace } from "./inbox";
import { sentMime } from "./mail";

/**
 * Sends that resume (defect 5 of issue 24): each recipient's copy is recorded before the next is
 * tried, so the retry of a send that failed at recipient k sends to k and after only, and the
 * message is stored once. The faults are real send_email bindings that refuse a recipient: the
 * first refuses the second recipient, and the retry's refuses the first, so a retry that sent to
 * the first again would fail.
 */

const recipients = ["first@resume.example", "second@resume.example", "third@resume.example"];

describe("a compose to three recipients whose second send fails", () => {
  it("is retried to the second and third only, and stored as one conversation", async () => {
    const workspace = await inboxWorkspace();
    const db = regionDb("us");
    const actor = {
      requestId: "req_resume",
      organizationId: workspace.organizationId,
      region: "us",
      shard: 1,
      actor: { type: "user", id: workspace.userId },
      credential: { type: "api_key", id: "key_resume" },
      scopes: [],
      workspaceIds: null,
      organizationRole: "owner",
      operationId: "composeConversation",
      method: "POST",
      path: "/inbox/conversations",
      target: "/api/v1/inbox/conversations",
      surface: "api",
      issuedAt: Date.now(),
    } satisfies ActorContext;
    // The people a response shows come from the gateway under test, as the region asks it.
    const directory = gatewayDirectory({
      GATEWAY: (exports as unknown as { default: Fetcher }).default,
      GATEWAY_CONTEXT_SECRET: env.GATEWAY_CONTEXT_SECRET_US,
      REGION: "us",
      PUBLIC_ORIGIN: "http://127.0.0.1:8787",
    });
    const context = { db, actor, cursorSecret: "test-cursor-secret", directory };
    const outbox = (sender: SendEmail): Outbox => ({
      sender,
      bucket: env.ATTACHMENTS_US,
      region: "us",
      publicOrigin: "http://127.0.0.1:8787",
      contextSecret: "test-context-secret",
    });
    const subject = `Resumed ${crypto.randomUUID()}`;
    const body = { workspaceId: workspace.workspaceId, mailbox: workspace.mailbox, to: recipients, subject, text: "Hello" };
    const sendKey = `key:key_resume:${crypto.randomUUID()}`;

    await expect(composeConversationOf(context, outbox(env.MAIL_REFUSING_SECOND), body, sendKey)).rejects.toThrow(
      /second@resume\.example not allowed/,
    );
    const stored = () => countRows("us", regional.conversations, eq(regional.conversations.subject, subject));
    expect(await stored()).toBe(0);
    const reached = await db.select().from(regional.outboundSends).where(eq(regional.outboundSends.sendKey, sendKey));
    expect(reached.map((row) => row.recipient)).toEqual(["first@resume.example"]);

    const sent = await composeConversationOf(context, outbox(env.MAIL_REFUSING_FIRST), body, sendKey);
    expect(await stored()).toBe(1);
    expect(sent.message.to.map((address) => address.email)).toEqual(recipients);
    // One Message-ID in every copy, the first's included, and nothing left recorded.
    for (const recipient of recipients) {
      expect((await sentMime(sent.message.id, recipient)).messageId).toBe(`<${reached[0]?.messageId}>`);
    }
    expect(await countRows("us", regional.outboundSends, eq(regional.outboundSends.sendKey, sendKey))).toBe(0);
  });
});
