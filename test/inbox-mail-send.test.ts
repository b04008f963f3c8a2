import { regional } from "@crm/db";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { errorOf } from "./crm";
import { countRows } from "./fixtures";
import { addInboxMember, addPerson } from "./inbox";
import { deliver, headerOf, mailWorkspace, rawMessage, sentMime } from "./mail";
import { call, cast } from "./stack";

const { messages } = regional;

interface Sent {
  conversation: { id: string; mailbox: string; subject: string; hasLinkedRecords: boolean; lifecycle: string };
  message: {
    id: string;
    conversationId: string;
    direction: string;
    messageId: string;
    inReplyTo: string | null;
    references: string[];
    subject: string;
    text: string;
    html: string | null;
    to: { email: string }[];
    cc: { email: string }[];
  };
}

async function compose(key: string, json: Record<string, unknown>) {
  return call("/inbox/conversations", { method: "POST", key, json });
}

async function composed(key: string, json: Record<string, unknown>): Promise<Sent> {
  const response = await compose(key, json);
  if (response.status !== 201) throw new Error(`compose: ${response.status} ${await response.text()}`);
  return (await response.json()) as Sent;
}

/** The conversation and message ids of an inbound message, found by its Message-ID header. */
async function storedInbound(workspace: Awaited<ReturnType<typeof mailWorkspace>>, messageIdHeader: string) {
  const [row] = await workspace.db.select().from(messages).where(eq(messages.messageIdHeader, messageIdHeader));
  if (!row) throw new Error(`message ${messageIdHeader} not stored`);
  return row;
}

describe("compose: POST /inbox/conversations", () => {
  it("sends real MIME: text and sanitized HTML alternative, our Message-ID, one-click unsubscribe per recipient", async () => {
    const workspace = await mailWorkspace();
    const sent = await composed(workspace.key, {
      workspaceId: workspace.workspaceId,
      mailbox: workspace.mailbox.toUpperCase(),
      to: ["Ada@Customer.example"],
      cc: ["bea@customer.example"],
      subject: "Your renewal – déjà vu",
      text: "Hello Ada, the renewal is attached in spirit.",
      html: '<p onclick="steal()">Hello <b>Ada</b><script>alert(1)</script></p>',
    });
    expect(sent.conversation).toMatchObject({
      mailbox: workspace.mailbox,
      subject: "Your renewal – déjà vu",
      lifecycle: "replied",
    });
    expect(sent.message).toMatchObject({
      conversationId: sent.conversation.id,
      direction: "outbound",
      html: "<p>Hello <b>Ada</b></p>",
      to: [{ email: "ada@customer.example" }],
      cc: [{ email: "bea@customer.example" }],
      inReplyTo: null,
    });
    expect(sent.message.messageId).toMatch(new RegExp(`@${workspace.mailbox.split("@")[1]}$`));

    const mime = await sentMime(sent.message.id, "ada@customer.example");
    expect(mime.messageId).toBe(`<${sent.message.messageId}>`);
    expect(mime.from).toMatchObject({ address: workspace.mailbox });
    expect(mime.to?.map((address) => address.address)).toEqual(["ada@customer.example"]);
    expect(mime.cc?.map((address) => address.address)).toEqual(["bea@customer.example"]);
    expect(mime.subject).toBe("Your renewal – déjà vu");
    expect(mime.text?.trim()).toBe("Hello Ada, the renewal is attached in spirit.");
    expect(mime.html).toBe("<p>Hello <b>Ada</b></p>");
    expect(headerOf(mime, "content-type")).toMatch(/^multipart\/alternative/);
    expect(headerOf(mime, "list-unsubscribe-post")).toBe("List-Unsubscribe=One-Click");
    expect(headerOf(mime, "list-unsubscribe")).toMatch(
      /^<http:\/\/127\.0\.0\.1:8787\/api\/v1\/email\/unsubscribe\?token=[\w.%-]+>$/,
    );
    expect(headerOf(mime, "in-reply-to")).toBeUndefined();

    // The copy recipient's message is the same message with a link of their own.
    const copy = await sentMime(sent.message.id, "bea@customer.example");
    expect(copy.messageId).toBe(mime.messageId);
    expect(headerOf(copy, "list-unsubscribe")).not.toBe(headerOf(mime, "list-unsubscribe"));
  });

  it("derives the text part from HTML-only content", async () => {
    const workspace = await mailWorkspace();
    const sent = await composed(workspace.key, {
      workspaceId: workspace.workspaceId,
      mailbox: workspace.mailbox,
      to: ["ada@customer.example"],
      subject: "HTML only",
      html: "<p>Only <i>markup</i></p>",
    });
    expect(sent.message.text).toBe("Only markup");
    const mime = await sentMime(sent.message.id, "ada@customer.example");
    expect(mime.text?.trim()).toBe("Only markup");
    expect(mime.html).toBe("<p>Only <i>markup</i></p>");
  });

  it("refuses bad input with 400 and sends nothing: addresses, header injection, empty subject or body, foreign mailbox", async () => {
    const workspace = await mailWorkspace();
    const other = await mailWorkspace();
    const valid = {
      workspaceId: workspace.workspaceId,
      mailbox: workspace.mailbox,
      to: ["ada@customer.example"],
      subject: "Hello",
      text: "Hi",
    };
    const cases: [string, Record<string, unknown>][] = [
      ["not an address", { to: ["ada"] }],
      ["a display name", { to: ["Ada <ada@customer.example>"] }],
      ["two addresses in one", { to: ["ada@customer.example, eve@evil.example"] }],
      ["CRLF in an address", { to: ["ada@customer.example\r\nBcc: eve@evil.example"] }],
      ["LF in a cc address", { cc: ["bea@customer.example\nBcc: eve@evil.example"] }],
      ["CRLF in the subject", { subject: "Hello\r\nBcc: eve@evil.example" }],
      ["LF in the subject", { subject: "Hello\nX-Injected: yes" }],
      ["an empty subject", { subject: "   " }],
      ["no body", { text: undefined }],
      ["a blank body", { text: " \n " }],
      ["markup with no content", { text: undefined, html: "<script>alert(1)</script>" }],
      ["no recipients", { to: [] }],
      ["a text longer than 100 000 characters", { text: "a".repeat(100_001) }],
      ["another workspace's mailbox", { mailbox: other.mailbox }],
      ["an unknown property", { bcc: ["eve@evil.example"] }],
    ];
    for (const [name, change] of cases) {
      const response = await compose(workspace.key, { ...valid, ...change });
      expect(response.status, name).toBe(400);
      expect((await errorOf(response)).code, name).toBe("invalid_request");
    }
    expect(await countRows("us", messages, eq(messages.workspaceId, workspace.workspaceId))).toBe(0);
  });

  it("sends once when retried with the same Idempotency-Key", async () => {
    const workspace = await mailWorkspace();
    const json = {
      workspaceId: workspace.workspaceId,
      mailbox: workspace.mailbox,
      to: ["ada@customer.example"],
      subject: "Only once",
      text: "Hi",
    };
    const headers = { "idempotency-key": crypto.randomUUID() };
    const first = await call("/inbox/conversations", { method: "POST", key: workspace.key, json, headers });
    const again = await call("/inbox/conversations", { method: "POST", key: workspace.key, json, headers });
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    const [sent, replayed] = [(await first.json()) as Sent, (await again.json()) as Sent];
    expect(replayed.message.id).toBe(sent.message.id);
    expect(await countRows("us", messages, eq(messages.workspaceId, workspace.workspaceId))).toBe(1);
  });

  it("answers 413 for a body of 1 MiB or more", async () => {
    const workspace = await mailWorkspace();
    const response = await compose(workspace.key, {
      workspaceId: workspace.workspaceId,
      mailbox: workspace.mailbox,
      to: ["ada@customer.example"],
      subject: "Big",
      text: "a".repeat(1024 * 1024),
    });
    expect(response.status).toBe(413);
    expect((await errorOf(response)).code).toBe("payload_too_large");
  });
});

describe("reply: POST /inbox/conversations/{id}/messages", () => {
  it("replies to an inbound message threaded by In-Reply-To and References, and the customer's answer threads back by our Message-ID", async () => {
    const workspace = await mailWorkspace();
    const first = "<first-question@customer.example>";
    expect(await deliver(rawMessage({ to: workspace.mailbox, messageId: first, subject: "Pricing" }), workspace.mailbox)).toEqual(
      {
        rejected: null,
      },
    );
    const inbound = await storedInbound(workspace, "first-question@customer.example");

    const response = await call(`/inbox/conversations/${inbound.conversationId}/messages`, {
      method: "POST",
      key: workspace.key,
      json: { text: "Thanks, the plan is 10 a seat.", html: "<p>Thanks, the plan is <b>10</b> a seat.</p>" },
    });
    expect(response.status).toBe(201);
    const reply = (await response.json()) as Sent;
    expect(reply.conversation.id).toBe(inbound.conversationId);
    expect(reply.message).toMatchObject({
      direction: "outbound",
      subject: "Re: Pricing",
      inReplyTo: "first-question@customer.example",
      references: ["first-question@customer.example"],
      to: [{ email: "casey@customer.example" }],
    });

    const mime = await sentMime(reply.message.id, "casey@customer.example");
    expect(mime.inReplyTo).toBe(first);
    expect(mime.references).toBe(first);
    expect(mime.subject).toBe("Re: Pricing");
    expect(mime.messageId).toBe(`<${reply.message.messageId}>`);
    expect(mime.text?.trim()).toBe("Thanks, the plan is 10 a seat.");
    expect(mime.html).toBe("<p>Thanks, the plan is <b>10</b> a seat.</p>");
    expect(headerOf(mime, "list-unsubscribe-post")).toBe("List-Unsubscribe=One-Click");

    // The customer answers our reply: their client names our Message-ID, and the answer joins the thread.
    const answer = rawMessage({
      to: workspace.mailbox,
      subject: "Re: Re: Pricing",
      inReplyTo: `<${reply.message.messageId}>`,
      references: `${first} <${reply.message.messageId}>`,
      text: "Great, thank you",
      date: new Date(Date.now() + 2_000),
    });
    expect((await deliver(answer, workspace.mailbox)).rejected).toBeNull();
    const threaded = await workspace.db.select().from(messages).where(eq(messages.conversationId, inbound.conversationId));
    expect(threaded.map((message) => message.direction).sort()).toEqual(["inbound", "inbound", "outbound"]);

    // A second reply threads to the latest message, with the whole chain in References.
    const second = (await (
      await call(`/inbox/conversations/${inbound.conversationId}/messages`, {
        method: "POST",
        key: workspace.key,
        json: { text: "You are welcome", cc: ["boss@customer.example"] },
      })
    ).json()) as Sent;
    const latest = threaded.find((message) => message.text.startsWith("Great"));
    expect(second.message.inReplyTo).toBe(latest?.messageIdHeader);
    expect(second.message.references).toEqual([
      "first-question@customer.example",
      reply.message.messageId,
      latest?.messageIdHeader,
    ]);
    const secondMime = await sentMime(second.message.id, "boss@customer.example");
    expect(secondMime.references?.split(/\s+/)).toHaveLength(3);
  });

  it("answers 404 for an unknown conversation and 400 for header injection in a reply", async () => {
    const workspace = await mailWorkspace();
    await deliver(rawMessage({ to: workspace.mailbox, messageId: "<inject@customer.example>" }), workspace.mailbox);
    const inbound = await storedInbound(workspace, "inject@customer.example");
    const unknown = await call("/inbox/conversations/conv_000000000000/messages", {
      method: "POST",
      key: workspace.key,
      json: { text: "Hi" },
    });
    expect(unknown.status).toBe(404);
    for (const json of [
      { text: "Hi", subject: "Re: x\r\nBcc: eve@evil.example" },
      { text: "Hi", to: ["casey@customer.example\r\nBcc: eve@evil.example"] },
      { text: "" },
    ]) {
      const response = await call(`/inbox/conversations/${inbound.conversationId}/messages`, {
        method: "POST",
        key: workspace.key,
        json,
      });
      expect(response.status, JSON.stringify(json)).toBe(400);
    }
    expect(await countRows("us", messages, eq(messages.conversationId, inbound.conversationId))).toBe(1);
  });
});

describe("who may send", () => {
  it("refuses viewers and record_read members; record_reply members reply only on linked conversations (others are 404 to them)", async () => {
    const workspace = await mailWorkspace();
    await addPerson(workspace.key, workspace.workspaceId, "Ada Lovelace", "ada@customer.example");
    await deliver(
      rawMessage({ to: workspace.mailbox, from: "Ada <ada@customer.example>", messageId: "<linked@customer.example>" }),
      workspace.mailbox,
    );
    await deliver(rawMessage({ to: workspace.mailbox, messageId: "<unlinked@customer.example>" }), workspace.mailbox);
    const linked = await storedInbound(workspace, "linked@customer.example");
    const unlinked = await storedInbound(workspace, "unlinked@customer.example");
    const reply = (key: string, conversationId: string) =>
      call(`/inbox/conversations/${conversationId}/messages`, { method: "POST", key, json: { text: "Hello" } });
    const composeAs = (key: string) =>
      compose(key, {
        workspaceId: workspace.workspaceId,
        mailbox: workspace.mailbox,
        to: ["ada@customer.example"],
        subject: "Hello",
        text: "Hi",
      });

    const viewer = await addInboxMember(workspace, "viewer", "all");
    const reader = await addInboxMember(workspace, "member", "record_read");
    const replier = await addInboxMember(workspace, "member", "record_reply");
    for (const key of [viewer.key, reader.key]) {
      for (const response of [await composeAs(key), await reply(key, linked.conversationId)]) {
        expect(response.status).toBe(403);
        expect((await errorOf(response)).code).toBe("forbidden");
      }
    }
    expect((await composeAs(replier.key)).status).toBe(403);
    // An unlinked conversation does not exist for a record-scoped member: 404, as when reading it.
    const refused = await reply(replier.key, unlinked.conversationId);
    expect(refused.status).toBe(404);
    expect((await errorOf(refused)).code).toBe("not_found");
    expect((await reply(replier.key, linked.conversationId)).status).toBe(201);
    // Only the record_reply member's reply on the linked conversation went out.
    expect(await countRows("us", messages, eq(messages.conversationId, unlinked.conversationId))).toBe(1);
    expect(await countRows("us", messages, eq(messages.conversationId, linked.conversationId))).toBe(2);
  });

  it("bob (record_read in the demo) may not reply, carol (viewer) may not compose", async () => {
    const { bob, carol, support } = await cast();
    const composeAs = (key: string) =>
      compose(key, { workspaceId: support.id, mailbox: support.mailbox, to: ["x@customer.example"], subject: "Hi", text: "Hi" });
    expect((await composeAs(bob.apiKey)).status).toBe(403);
    expect((await composeAs(carol.apiKey)).status).toBe(403);
  });
});
