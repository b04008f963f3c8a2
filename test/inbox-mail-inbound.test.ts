import { env } from "cloudflare:test";
import { internalRequestHeader, sha256Hex, signInternalRequest, type UnsubscribeClaims } from "@crm/contracts";
import { regional } from "@crm/db";
import { eq, inArray } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { countRows, regionDb } from "./fixtures";
import { addInboxMember, addPerson } from "./inbox";
import { deliver, mailWorkspace, rawMessage } from "./mail";
import { call, cast } from "./stack";

const { attachments, conversations, messages } = regional;

type Workspace = Awaited<ReturnType<typeof mailWorkspace>>;

async function storedMessage(workspace: Workspace, messageIdHeader: string) {
  const [row] = await workspace.db.select().from(messages).where(eq(messages.messageIdHeader, messageIdHeader));
  return row;
}

const attachmentObjects = async () => (await env.ATTACHMENTS_US.list({ prefix: "attachments/" })).objects.length;

afterEach(() => {
  vi.restoreAllMocks();
});

describe("inbound mail through the gateway's email() handler", () => {
  it("starts a conversation, threads a reply by In-Reply-To, and stores a redelivered Message-ID once", async () => {
    const workspace = await mailWorkspace();
    const first = rawMessage({ to: workspace.mailbox, messageId: "<q1@customer.example>", subject: "Invoice question" });
    expect(await deliver(first, workspace.mailbox.toUpperCase())).toEqual({ rejected: null });
    const question = await storedMessage(workspace, "q1@customer.example");
    expect(question).toMatchObject({
      workspaceId: workspace.workspaceId,
      direction: "inbound",
      subject: "Invoice question",
      fromAddress: { email: "casey@customer.example", name: "Casey Customer" },
      toAddresses: [{ email: workspace.mailbox, name: null }],
    });
    const [conversation] = await workspace.db
      .select()
      .from(conversations)
      .where(eq(conversations.id, question?.conversationId ?? ""));
    expect(conversation).toMatchObject({ mailbox: workspace.mailbox, subject: "Invoice question", lifecycle: "awaiting_reply" });

    const reply = rawMessage({
      to: workspace.mailbox,
      messageId: "<q2@customer.example>",
      inReplyTo: "<q1@customer.example>",
      subject: "Re: Invoice question",
    });
    expect((await deliver(reply, workspace.mailbox)).rejected).toBeNull();
    expect((await storedMessage(workspace, "q2@customer.example"))?.conversationId).toBe(question?.conversationId);

    // Email Routing may deliver a message again: the second delivery is accepted and stores nothing.
    expect((await deliver(first, workspace.mailbox)).rejected).toBeNull();
    expect(await countRows("us", messages, eq(messages.workspaceId, workspace.workspaceId))).toBe(2);
    expect(await countRows("us", conversations, eq(conversations.workspaceId, workspace.workspaceId))).toBe(1);
  });

  it("keeps attachments in the region's bucket and streams one back after the message's access checks", async () => {
    const workspace = await mailWorkspace();
    const content = `%PDF-1.4 quote ${crypto.randomUUID()}`;
    const raw = rawMessage({
      to: workspace.mailbox,
      messageId: "<with-file@customer.example>",
      attachment: { filename: 'résumé "final".pdf', contentType: "application/pdf", content },
    });
    expect((await deliver(raw, workspace.mailbox)).rejected).toBeNull();
    const message = await storedMessage(workspace, "with-file@customer.example");
    const [file] = await workspace.db
      .select()
      .from(attachments)
      .where(eq(attachments.messageId, message?.id ?? ""));
    expect(file).toMatchObject({ filename: "résumé final.pdf", contentType: "application/pdf", size: content.length });

    const path = `/inbox/messages/${message?.id}/attachments/${file?.id}`;
    const response = await call(path, { key: workspace.key });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/pdf");
    expect(response.headers.get("content-disposition")).toBe(
      `attachment; filename="r_sum_ final.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9%20final.pdf`,
    );
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(new TextDecoder().decode(await response.arrayBuffer())).toBe(content);

    // A redelivery stores no second copy of the file.
    const before = await attachmentObjects();
    expect((await deliver(raw, workspace.mailbox)).rejected).toBeNull();
    expect(await attachmentObjects()).toBe(before);
    expect(await countRows("us", attachments, eq(attachments.workspaceId, workspace.workspaceId))).toBe(1);

    // Record-scoped access: the conversation is linked to no record, so it does not exist for a record_read member.
    const reader = await addInboxMember(workspace, "member", "record_read");
    expect((await call(path, { key: reader.key })).status).toBe(404);
    expect((await call(`/inbox/messages/${message?.id}/attachments/att_000000000000`, { key: workspace.key })).status).toBe(404);
  });

  it("links a sender who is a person record, and lets record-scoped members download that conversation's files", async () => {
    const workspace = await mailWorkspace();
    const ada = await addPerson(workspace.key, workspace.workspaceId, "Ada Lovelace", "ada@customer.example");
    const raw = rawMessage({
      from: "Ada Lovelace <ada@customer.example>",
      to: workspace.mailbox,
      messageId: "<ada-file@customer.example>",
      attachment: { filename: "notes.txt", contentType: "text/plain", content: "Notes from Ada" },
    });
    expect((await deliver(raw, workspace.mailbox)).rejected).toBeNull();
    const message = await storedMessage(workspace, "ada-file@customer.example");
    const [conversation] = await workspace.db
      .select()
      .from(conversations)
      .where(eq(conversations.id, message?.conversationId ?? ""));
    expect(conversation?.hasLinkedRecords).toBe(true);
    const links = await workspace.db
      .select()
      .from(regional.conversationRecords)
      .where(eq(regional.conversationRecords.conversationId, conversation?.id ?? ""));
    expect(links.map((link) => link.recordId)).toEqual([ada]);
    const [file] = await workspace.db
      .select()
      .from(attachments)
      .where(eq(attachments.messageId, message?.id ?? ""));
    const reader = await addInboxMember(workspace, "member", "record_read");
    const response = await call(`/inbox/messages/${message?.id}/attachments/${file?.id}`, { key: reader.key });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("Notes from Ada");
  });

  it("stores mail of an eu organization in the eu region only", async () => {
    const workspace = await mailWorkspace("eu");
    expect(
      (await deliver(rawMessage({ to: workspace.mailbox, messageId: "<eu@customer.example>" }), workspace.mailbox)).rejected,
    ).toBeNull();
    expect(await countRows("eu", messages, eq(messages.workspaceId, workspace.workspaceId))).toBe(1);
    expect(await countRows("us", messages, eq(messages.workspaceId, workspace.workspaceId))).toBe(0);
  });

  it("stores mail from outside claiming the mailbox as its sender as inbound, marked, never the team's own", async () => {
    const workspace = await mailWorkspace();
    const raw = rawMessage({ from: workspace.mailbox, to: "ada@customer.example", messageId: "<own@test.example>" });
    expect((await deliver(raw, workspace.mailbox)).rejected).toBeNull();
    expect(await storedMessage(workspace, "own@test.example")).toMatchObject({
      direction: "inbound",
      senderKind: "own_mailbox_from_outside",
    });
  });
});

describe("inbound mail that is refused", () => {
  it("rejects mail for an unknown mailbox", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const delivery = await deliver(rawMessage({ to: "nobody@nowhere.example" }), "nobody@nowhere.example");
    expect(delivery.rejected).toBe("Unknown mailbox");
    expect(warn).toHaveBeenCalledOnce();
  });

  it("rejects unparsable mail with a reason, logs no content, and stores nothing", async () => {
    const workspace = await mailWorkspace();
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const cases = [
      ["no header section", "just some words without any header\r\nsecret body text"],
      ["no sender", ["To: someone@example.com", "Subject: secret subject", "", "secret body text", ""].join("\r\n")],
      ["binary noise", new Uint8Array(4096).map((_, i) => (i * 7919) % 251)],
    ] as const;
    for (const [name, raw] of cases) {
      const delivery = await deliver(raw, workspace.mailbox);
      expect(delivery.rejected, name).toMatch(/^Rejected: /);
    }
    const logged = warn.mock.calls.map((args) => String(args[0]));
    expect(logged).toHaveLength(cases.length);
    for (const line of logged) {
      expect(JSON.parse(line)).toMatchObject({ event: "inbound_mail_rejected", to: workspace.mailbox });
      expect(line).not.toContain("secret");
    }
    expect(await countRows("us", messages, eq(messages.workspaceId, workspace.workspaceId))).toBe(0);
  });

  it("rejects a message over 25 MiB without storing anything", async () => {
    const workspace = await mailWorkspace();
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const head = new TextEncoder().encode(rawMessage({ to: workspace.mailbox, text: "" }));
    const raw = new Uint8Array(25 * 1024 * 1024 + 1).fill(0x61);
    raw.set(head);
    const delivery = await deliver(raw, workspace.mailbox);
    expect(delivery.rejected).toBe("Message too large (the limit is 25 MiB)");
    expect(await countRows("us", messages, eq(messages.workspaceId, workspace.workspaceId))).toBe(0);
  });
});

describe("the region's inbound entry", () => {
  const inbound = (headers: Record<string, string>, body: string) =>
    env.API_US.fetch("https://api.us.internal/__internal/mail/inbound", { method: "POST", headers, body });

  it("serves only requests the gateway signed for these very bytes and this purpose", async () => {
    const workspace = await mailWorkspace();
    const raw = rawMessage({ to: workspace.mailbox });
    const digest = await sha256Hex(new TextEncoder().encode(raw).buffer as ArrayBuffer);
    const signed = (claims: object, secret = "test-context-secret-us") =>
      signInternalRequest(
        { purpose: "inbound-mail", shard: 1, mailbox: workspace.mailbox, digest, issuedAt: Date.now(), ...claims },
        secret,
      );
    const unsubscribe: UnsubscribeClaims = {
      purpose: "unsubscribe",
      shard: 1,
      organizationId: "org_x00000",
      address: "a@b.example",
      issuedAt: Date.now(),
    };
    const refused: Record<string, string>[] = [
      {},
      { [internalRequestHeader]: await signed({}, "test-context-secret-eu") },
      { [internalRequestHeader]: await signed({ digest: "0".repeat(64) }) },
      { [internalRequestHeader]: await signed({ issuedAt: Date.now() - 120_000 }) },
      { [internalRequestHeader]: await signInternalRequest(unsubscribe, "test-context-secret-us") },
    ];
    for (const headers of refused) expect((await inbound(headers, raw)).status).toBe(401);
    expect(await countRows("us", messages, eq(messages.workspaceId, workspace.workspaceId))).toBe(0);
    expect((await inbound({ [internalRequestHeader]: await signed({}) }, raw)).status).toBe(200);
    expect(await countRows("us", messages, eq(messages.workspaceId, workspace.workspaceId))).toBe(1);
  });
});

describe("the demo seed's mail", () => {
  it("came in through the inbound entry: inbound and outbound messages, a thread linked to a person, an attachment bob may not open", async () => {
    // Sales: the seed fills the workspaces an owner is a member of.
    const { alice, bob, sales } = await cast();
    const db = regionDb("us");
    const stored = await db.select().from(messages).where(eq(messages.workspaceId, sales.id));
    const seeded = stored.filter((message) => message.messageIdHeader.endsWith("@demo.example"));
    expect(new Set(seeded.map((message) => message.direction))).toEqual(new Set(["inbound", "outbound"]));
    const answer = seeded.find((message) => message.direction === "outbound");
    const question = seeded.find((message) => message.messageIdHeader === answer?.inReplyTo);
    expect(answer?.conversationId).toBe(question?.conversationId);
    const [thread] = await db
      .select()
      .from(conversations)
      .where(eq(conversations.id, question?.conversationId ?? ""));
    expect(thread).toMatchObject({ subject: "Question about the renewal", hasLinkedRecords: true });

    const [file] = await db
      .select()
      .from(attachments)
      .where(
        inArray(
          attachments.messageId,
          seeded.map((message) => message.id),
        ),
      );
    expect(file).toMatchObject({ filename: "proposal.txt", contentType: "text/plain" });
    const path = `/inbox/messages/${file?.messageId}/attachments/${file?.id}`;
    const response = await call(path, { key: alice.apiKey });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("Partnership proposal: joint webinar series.");
    // The proposal's conversation is linked to no record: bob (record_read) does not see it.
    expect((await call(path, { key: bob.apiKey })).status).toBe(404);
  });
});
