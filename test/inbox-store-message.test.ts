import { regional } from "@crm/db";
import { and, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { storeMessage } from "../workers/api/src/domain/inbox/store-message";
import { countRows } from "./fixtures";
import { addPerson, inboundMessage, inboxWorkspace, nextArrival } from "./inbox";

const { conversations, conversationAttendees, conversationRecords, eventOutbox, messages } = regional;

/** The events of a workspace in the outbox in the order they were written (ids of one millisecond are random). */
async function eventsOf(db: Awaited<ReturnType<typeof inboxWorkspace>>["db"], workspaceId: string) {
  const rows = await db
    .select({ type: eventOutbox.type, payload: eventOutbox.payload })
    .from(eventOutbox)
    .where(eq(eventOutbox.workspaceId, workspaceId))
    .orderBy(sql`rowid`);
  return rows.map((row) => ({ type: row.type, data: (JSON.parse(row.payload) as { data: Record<string, unknown> }).data }));
}

const searchRows = async (db: Awaited<ReturnType<typeof inboxWorkspace>>["db"], conversationId: string) =>
  // Raw SQL: the FTS5 table is not in the drizzle schema.
  (await db.all<{ n: number }>(sql`select count(*) as n from inbox_search where conversation_id = ${conversationId}`))[0]?.n;

describe("storeMessage", () => {
  it("starts a conversation, threads replies by In-Reply-To and References, and keeps the conversation current", async () => {
    const { db, mailbox, workspaceId } = await inboxWorkspace();
    const first = await storeMessage(db, inboundMessage(mailbox, { messageId: "<first@mail.test>", sentAtMs: 1_000 }));
    expect(first).toMatchObject({ stored: true, conversationCreated: true });

    await nextArrival();
    const reply = await storeMessage(
      db,
      inboundMessage(mailbox, {
        messageId: "reply@mail.test",
        inReplyTo: "<first@mail.test>",
        subject: "Re: Question about pricing",
        text: "And is there a discount?",
        sentAtMs: 2_000,
      }),
    );
    // Only References names the thread (a client that drops In-Reply-To), the parent listed last.
    await nextArrival();
    const byReferences = await storeMessage(
      db,
      inboundMessage(mailbox, {
        messageId: "later@mail.test",
        references: ["<unknown@elsewhere.test>", "<first@mail.test>", "<reply@mail.test>"],
        text: "Following up",
        attachments: [{ id: "att_test01", filename: "quote.pdf", contentType: "application/pdf", size: 10, r2Key: "k" }],
        sentAtMs: 3_000,
      }),
    );
    // A message dated earlier but arriving last is the latest here: the inbox runs on its own clock.
    await nextArrival();
    const late = await storeMessage(
      db,
      inboundMessage(mailbox, { messageId: "late@mail.test", inReplyTo: "first@mail.test", text: "Late", sentAtMs: 1_500 }),
    );
    const [lateRow] = await db.select().from(messages).where(eq(messages.messageIdHeader, "late@mail.test"));
    const unrelated = await storeMessage(db, inboundMessage(mailbox, { inReplyTo: "<not-stored@mail.test>" }));

    for (const stored of [reply, byReferences, late]) {
      expect(stored).toMatchObject({ conversationId: first.conversationId, stored: true, conversationCreated: false });
    }
    expect(unrelated.conversationId).not.toBe(first.conversationId);
    expect(unrelated.conversationCreated).toBe(true);

    const [conversation] = await db.select().from(conversations).where(eq(conversations.id, first.conversationId));
    expect(conversation).toMatchObject({
      workspaceId,
      mailbox,
      channel: "email",
      subject: "Question about pricing",
      snippet: "Late",
      lastMessageAtMs: lateRow?.createdAt,
      hasAttachments: true,
      lifecycle: "awaiting_reply",
    });
    expect(await countRows("us", messages, eq(messages.conversationId, first.conversationId))).toBe(4);
    expect(await searchRows(db, first.conversationId)).toBe(4);
  });

  it("threads only against Message-IDs of its own workspace", async () => {
    const one = await inboxWorkspace();
    const other = await inboxWorkspace();
    const parent = await storeMessage(one.db, inboundMessage(one.mailbox, { messageId: "<shared-parent@mail.test>" }));
    const child = await storeMessage(other.db, inboundMessage(other.mailbox, { inReplyTo: "<shared-parent@mail.test>" }));
    expect(child.conversationCreated).toBe(true);
    expect(child.conversationId).not.toBe(parent.conversationId);
    // The same Message-ID may exist once per workspace.
    const copy = await storeMessage(other.db, inboundMessage(other.mailbox, { messageId: "<shared-parent@mail.test>" }));
    expect(copy.stored).toBe(true);
  });

  it("stores a message once per Message-ID: a repeat answers the first ids and writes nothing", async () => {
    const { db, mailbox, workspaceId } = await inboxWorkspace();
    const message = inboundMessage(mailbox);
    const first = await storeMessage(db, message);
    const again = await storeMessage(db, { ...message, text: "a different body" });
    expect(again).toEqual({
      conversationId: first.conversationId,
      messageId: first.messageId,
      stored: false,
      conversationCreated: false,
    });
    expect(await countRows("us", messages, eq(messages.workspaceId, workspaceId))).toBe(1);
    expect(await searchRows(db, first.conversationId)).toBe(1);
    expect((await eventsOf(db, workspaceId)).map((event) => event.type)).toEqual(["conversation.created", "message.received"]);
  });

  it("stores a message once when two deliveries of it race (the unique index decides)", async () => {
    const { db, mailbox, workspaceId } = await inboxWorkspace();
    const message = inboundMessage(mailbox);
    const results = await Promise.all([storeMessage(db, message), storeMessage(db, message), storeMessage(db, message)]);
    expect(results.filter((result) => result.stored)).toHaveLength(1);
    const winner = results.find((result) => result.stored);
    for (const result of results) {
      expect(result).toMatchObject({ conversationId: winner?.conversationId, messageId: winner?.messageId });
    }
    // Nothing of the losing deliveries is left: no second conversation, message, search row or event.
    expect(await countRows("us", conversations, eq(conversations.workspaceId, workspaceId))).toBe(1);
    expect(await countRows("us", messages, eq(messages.workspaceId, workspaceId))).toBe(1);
    expect(await searchRows(db, winner?.conversationId as string)).toBe(1);
    expect(await eventsOf(db, workspaceId)).toHaveLength(2);
  });

  it("matches attendees to people records by e-mail and links them, case-insensitively", async () => {
    const { db, key, mailbox, workspaceId } = await inboxWorkspace();
    const ada = await addPerson(key, workspaceId, "Ada Lovelace", "ada@customer.example");
    const grace = await addPerson(key, workspaceId, "Grace Hopper", "grace@customer.example");
    const stored = await storeMessage(
      db,
      inboundMessage(mailbox, {
        from: { email: "ADA@Customer.example", name: "Ada" },
        cc: [
          { email: "stranger@nowhere.example", name: null },
          { email: "ada@customer.example", name: "Ada again" },
        ],
      }),
    );
    const attendees = await db
      .select()
      .from(conversationAttendees)
      .where(eq(conversationAttendees.conversationId, stored.conversationId))
      .orderBy(conversationAttendees.email);
    expect(attendees.map(({ email, isSender, recordId, displayName }) => ({ email, isSender, recordId, displayName }))).toEqual([
      { email: "ada@customer.example", isSender: true, recordId: ada, displayName: "Ada" },
      { email: mailbox, isSender: false, recordId: null, displayName: null },
      { email: "stranger@nowhere.example", isSender: false, recordId: null, displayName: null },
    ]);
    const links = await db
      .select()
      .from(conversationRecords)
      .where(eq(conversationRecords.conversationId, stored.conversationId));
    expect(links.map(({ recordId, source }) => ({ recordId, source }))).toEqual([{ recordId: ada, source: "attendee" }]);

    // A later message of the thread brings Grace in: linked too, and the earlier link stays.
    await storeMessage(
      db,
      inboundMessage(mailbox, {
        inReplyTo: (await db.select().from(messages).where(eq(messages.id, stored.messageId)))[0]?.messageIdHeader ?? null,
        from: { email: "grace@customer.example", name: "Grace" },
      }),
    );
    expect(
      await countRows(
        "us",
        conversationRecords,
        and(eq(conversationRecords.conversationId, stored.conversationId), eq(conversationRecords.recordId, grace)),
      ),
    ).toBe(1);
    const [conversation] = await db.select().from(conversations).where(eq(conversations.id, stored.conversationId));
    expect(conversation?.hasLinkedRecords).toBe(true);
  });

  it("leaves conversations of unknown senders unlinked", async () => {
    const { db, mailbox } = await inboxWorkspace();
    const stored = await storeMessage(db, inboundMessage(mailbox));
    const [conversation] = await db.select().from(conversations).where(eq(conversations.id, stored.conversationId));
    expect(conversation?.hasLinkedRecords).toBe(false);
  });

  it("writes conversation.created and message.received (message.sent outbound), message events naming the message without its body", async () => {
    const { db, mailbox, workspaceId } = await inboxWorkspace();
    const inbound = await storeMessage(db, inboundMessage(mailbox, { subject: "Hello", text: "Hi there" }));
    const outbound = await storeMessage(
      db,
      inboundMessage(mailbox, {
        direction: "outbound",
        conversationId: inbound.conversationId,
        from: { email: mailbox, name: "Inbox" },
        to: [{ email: "customer@outside.example", name: null }],
        text: "Thanks for writing",
      }),
      { type: "user", id: "usr_sender01" },
    );
    const events = await eventsOf(db, workspaceId);
    expect(events.map((event) => event.type)).toEqual(["conversation.created", "message.received", "message.sent"]);
    expect(events[0]?.data).toMatchObject({
      id: inbound.conversationId,
      workspaceId,
      mailbox,
      subject: "Hello",
      lastMessageSnippet: "Hi there",
      isClosed: false,
    });
    expect(events[1]?.data).toMatchObject({
      id: inbound.messageId,
      conversationId: inbound.conversationId,
      direction: "inbound",
    });
    expect(events[2]?.data).toMatchObject({ id: outbound.messageId, direction: "outbound", snippet: "Thanks for writing" });
    expect(events[2]?.data).not.toHaveProperty("text");
    const [conversation] = await db.select().from(conversations).where(eq(conversations.id, inbound.conversationId));
    expect(conversation?.lifecycle).toBe("replied");
  });

  it("sanitizes HTML and keeps the text part when the sanitizer refuses hostile markup", async () => {
    const { db, mailbox } = await inboxWorkspace();
    const safe = await storeMessage(
      db,
      inboundMessage(mailbox, { text: "", html: '<p onclick="steal()">Hi <script>alert(1)</script><b>there</b></p>' }),
    );
    const [stored] = await db.select().from(messages).where(eq(messages.id, safe.messageId));
    expect(stored?.html).toBe("<p>Hi <b>there</b></p>");
    expect(stored?.text).toBe("Hi there");

    const hostile = await storeMessage(db, inboundMessage(mailbox, { text: "The text part", html: "<div>".repeat(2_000) }));
    const [kept] = await db.select().from(messages).where(eq(messages.id, hostile.messageId));
    expect(kept).toMatchObject({ html: null, text: "The text part" });
  });

  it("keeps what a response can show: long subjects and names cut, overlong addresses and references left out", async () => {
    const { db, mailbox } = await inboxWorkspace();
    const long = "x".repeat(1_200);
    const stored = await storeMessage(
      db,
      inboundMessage(mailbox, {
        subject: long,
        from: { email: "ada@customer.example", name: long },
        cc: [{ email: `${"y".repeat(300)}@customer.example`, name: null }],
        references: [`<${long}@mail.test>`],
        attachments: [{ id: "att_0000long01", filename: long, contentType: "text/plain", size: 1, r2Key: "k" }],
      }),
    );
    const [message] = await db.select().from(messages).where(eq(messages.id, stored.messageId));
    expect(message?.subject).toHaveLength(998);
    expect(message?.fromAddress.name).toHaveLength(255);
    expect(message?.ccAddresses).toEqual([]);
    expect(message?.references).toEqual([]);
    const [file] = await db.select().from(regional.attachments).where(eq(regional.attachments.messageId, stored.messageId));
    expect(file?.filename).toHaveLength(255);
    await expect(
      storeMessage(db, inboundMessage(mailbox, { from: { email: `${"z".repeat(300)}@customer.example`, name: null } })),
    ).rejects.toMatchObject({ code: "invalid_request" });
    await expect(storeMessage(db, inboundMessage(mailbox, { messageId: `<${long}@mail.test>` }))).rejects.toMatchObject({
      code: "invalid_request",
    });
  });

  it("refuses a message for an unknown mailbox or without a Message-ID, storing nothing", async () => {
    const { db, mailbox, workspaceId } = await inboxWorkspace();
    await expect(storeMessage(db, inboundMessage("nobody@test.example"))).rejects.toMatchObject({ code: "not_found" });
    await expect(storeMessage(db, inboundMessage(mailbox, { messageId: " <> " }))).rejects.toMatchObject({
      code: "invalid_request",
    });
    expect(await countRows("us", messages, eq(messages.workspaceId, workspaceId))).toBe(0);
  });
});
