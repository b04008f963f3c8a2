import { describe, expect, it } from "vitest";
import { deliver, mailWorkspace, rawMessage } from "./mail";
import { call } from "./stack";

/**
 * Mail as it is sent, through the gateway's real email() entry with raw RFC 5322 messages written
 * here (DESIGN.md section 8): the inbox on the service's own clock, attachments byte for byte in
 * every transfer encoding, bounces stored as from the mail system, header values without control
 * characters, and mail claiming the workspace's own mailbox kept apart from the team's own.
 */

interface Conversation {
  id: string;
  subject: string;
  lastMessageSnippet: string;
  lastMessageAtMs: number;
  lifecycle: string;
  attendees: { email: string; displayName: string | null; isSender: boolean }[];
}
interface Message {
  id: string;
  text: string;
  direction: string;
  senderKind: string;
  from: { email: string; name: string | null };
  subject: string;
  sentAtMs: number;
  createdAt: number;
  attachments: { id: string; filename: string; size: number; contentType: string }[];
}

type Workspace = Awaited<ReturnType<typeof mailWorkspace>>;

const pause = () => new Promise((resolve) => setTimeout(resolve, 5));

async function conversations(workspace: Workspace): Promise<Conversation[]> {
  const response = await call(`/inbox/conversations?workspaceId=${workspace.workspaceId}`, { key: workspace.key });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: Conversation[] }).data;
}

async function messagesOf(workspace: Workspace, conversationId: string): Promise<Message[]> {
  const response = await call(`/inbox/conversations/${conversationId}/messages`, { key: workspace.key });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: Message[] }).data;
}

async function onlyConversation(workspace: Workspace) {
  const [conversation] = await conversations(workspace);
  if (!conversation) throw new Error("no conversation stored");
  return { conversation, messages: await messagesOf(workspace, conversation.id) };
}

describe("the inbox on the service's own clock", () => {
  it("orders conversations and messages by arrival; the Date header is kept as sentAtMs only", async () => {
    const workspace = await mailWorkspace();
    const future = new Date("2100-01-01T00:00:00Z");
    const past = new Date("1990-01-01T00:00:00Z");
    const start = Date.now();
    const delivered = async (subject: string, date: Date, extra: Partial<Parameters<typeof rawMessage>[0]> = {}) => {
      expect(await deliver(rawMessage({ to: workspace.mailbox, subject, date, ...extra }), workspace.mailbox)).toEqual({
        rejected: null,
      });
      await pause();
    };
    await delivered("From the future", future, { messageId: "<future@customer.example>", text: "Dated 2100" });
    await delivered("Right now", new Date());
    await delivered("From the past", past);
    const listed = await conversations(workspace);
    expect(listed.map((conversation) => conversation.subject)).toEqual(["From the past", "Right now", "From the future"]);
    for (const conversation of listed) expect(conversation.lastMessageAtMs).toBeGreaterThanOrEqual(start);
    expect(listed.every((conversation) => conversation.lastMessageAtMs <= Date.now())).toBe(true);

    // A real reply to the 2100 message: its conversation moves up, and the snippet is the reply's.
    await delivered("Re: From the future", new Date(Date.now() - 3_600_000), {
      inReplyTo: "<future@customer.example>",
      text: "A reply written an hour ago",
    });
    const after = await conversations(workspace);
    expect(after[0]).toMatchObject({ subject: "From the future", lastMessageSnippet: "A reply written an hour ago" });
    const thread = await messagesOf(workspace, after[0]?.id as string);
    expect(thread.map((message) => message.text)).toEqual(["Dated 2100", "A reply written an hour ago"]);
    expect(thread[0]?.sentAtMs).toBe(future.getTime());
    expect(thread[0]?.createdAt).toBeLessThan(thread[1]?.createdAt as number);
    expect(after[0]?.lastMessageAtMs).toBe(thread[1]?.createdAt);
  });
});

/** A multipart message with one attachment per transfer encoding, each written as a mail client would. */
function attachmentsMessage(to: string, parts: { filename: string; encoding: string; body: string }[]) {
  return [
    "From: Casey Customer <casey@customer.example>",
    `To: ${to}`,
    "Subject: Files",
    `Message-ID: <${crypto.randomUUID()}@customer.example>`,
    "MIME-Version: 1.0",
    'Content-Type: multipart/mixed; boundary="part"',
    "",
    "--part",
    "Content-Type: text/plain; charset=utf-8",
    "",
    "Three files.",
    ...parts.flatMap(({ filename, encoding, body }) => [
      "--part",
      `Content-Type: application/octet-stream; name="${filename}"`,
      `Content-Disposition: attachment; filename="${filename}"`,
      `Content-Transfer-Encoding: ${encoding}`,
      "",
      body,
    ]),
    "--part--",
    "",
  ].join("\r\n");
}

describe("attachments byte for byte", () => {
  it("stores 7bit, quoted-printable and base64 parts exactly as sent (the line break before a boundary is the boundary's)", async () => {
    const workspace = await mailWorkspace();
    const binary = Uint8Array.from({ length: 256 }, (_, i) => i);
    const expected: Record<string, Uint8Array> = {
      "eight.txt": new TextEncoder().encode("12345678"),
      "lines.txt": new TextEncoder().encode("line one\r\nline two\r\n"),
      "quoted.txt": new TextEncoder().encode("a=b caf\u00e9\r\nsoft-broken line"),
      "binary.bin": binary,
    };
    const raw = attachmentsMessage(workspace.mailbox, [
      { filename: "eight.txt", encoding: "7bit", body: "12345678" },
      // A part whose content ends in a line break: that break is content, the next one the boundary's.
      { filename: "lines.txt", encoding: "7bit", body: "line one\r\nline two\r\n" },
      { filename: "quoted.txt", encoding: "quoted-printable", body: "a=3Db caf=C3=A9\r\nsoft-bro=\r\nken line" },
      {
        filename: "binary.bin",
        encoding: "base64",
        body: (btoa(String.fromCharCode(...binary)).match(/.{1,76}/g) ?? []).join("\r\n"),
      },
    ]);
    expect(await deliver(raw, workspace.mailbox)).toEqual({ rejected: null });
    const { messages } = await onlyConversation(workspace);
    const files = messages[0]?.attachments ?? [];
    expect(files.map((file) => file.filename).sort()).toEqual(Object.keys(expected).sort());
    for (const file of files) {
      const response = await call(`/inbox/messages/${messages[0]?.id}/attachments/${file.id}`, { key: workspace.key });
      expect(response.status).toBe(200);
      const bytes = new Uint8Array(await response.arrayBuffer());
      expect([...bytes], file.filename).toEqual([...(expected[file.filename] as Uint8Array)]);
      expect(file.size, file.filename).toBe(expected[file.filename]?.byteLength);
    }
    expect(messages[0]?.text).toBe("Three files.");
  });
});

describe("bounces", () => {
  it("stores a message from the null sender (From: MAILER DAEMON <>) as from the mail system", async () => {
    const workspace = await mailWorkspace();
    const raw = rawMessage({ to: workspace.mailbox, from: "MAILER DAEMON <>", subject: "Undelivered Mail Returned to Sender" });
    expect(await deliver(raw, workspace.mailbox, "")).toEqual({ rejected: null });
    const { conversation, messages } = await onlyConversation(workspace);
    const domain = workspace.mailbox.split("@")[1];
    expect(messages[0]).toMatchObject({
      direction: "inbound",
      senderKind: "mail_system",
      from: { email: `mailer-daemon@${domain}`, name: "MAILER DAEMON" },
    });
    // The mail system is no attendee and no one to reply to.
    expect(conversation.attendees.map((attendee) => attendee.email)).toEqual([workspace.mailbox]);
    const reply = await call(`/inbox/conversations/${conversation.id}/messages`, {
      method: "POST",
      key: workspace.key,
      json: { text: "Who is this?" },
    });
    expect(reply.status).toBe(400);
  });

  it("keeps the From address of a report sent with the null reverse-path, and replies to the customer, not to it", async () => {
    const workspace = await mailWorkspace();
    const question = rawMessage({ to: workspace.mailbox, messageId: "<question@customer.example>" });
    expect(await deliver(question, workspace.mailbox)).toEqual({ rejected: null });
    await pause();
    const report = rawMessage({
      to: workspace.mailbox,
      from: "Mail Delivery Subsystem <mailer-daemon@mx.customer.example>",
      inReplyTo: "<question@customer.example>",
      subject: "Delivery Status Notification (Failure)",
    });
    expect(await deliver(report, workspace.mailbox, "<>")).toEqual({ rejected: null });
    const { conversation, messages } = await onlyConversation(workspace);
    expect(messages.map((message) => message.senderKind)).toEqual(["person", "mail_system"]);
    expect(messages[1]?.from.email).toBe("mailer-daemon@mx.customer.example");
    const reply = await call(`/inbox/conversations/${conversation.id}/messages`, {
      method: "POST",
      key: workspace.key,
      json: { text: "Sorry, trying again" },
    });
    expect(reply.status).toBe(201);
    const sent = (await reply.json()) as { message: { to: { email: string }[] } };
    expect(sent.message.to.map((address) => address.email)).toEqual(["casey@customer.example"]);
  });
});

describe("decoded header values", () => {
  it("stores subjects, display names and attendees without CR, LF or other control characters", async () => {
    const workspace = await mailWorkspace();
    const raw = rawMessage({
      to: workspace.mailbox,
      from: "=?utf-8?q?Casey=0D=0ABcc=3A_x=40evil.example?= <casey@customer.example>",
      subject: "=?utf-8?q?Invoice=0D=0ABcc=3A_victim=40evil.example=00=07?=",
    });
    expect(await deliver(raw, workspace.mailbox)).toEqual({ rejected: null });
    const { conversation, messages } = await onlyConversation(workspace);
    expect(conversation.subject).toBe("Invoice Bcc: victim@evil.example");
    expect(messages[0]?.subject).toBe("Invoice Bcc: victim@evil.example");
    expect(messages[0]?.from).toEqual({ email: "casey@customer.example", name: "Casey Bcc: x@evil.example" });
    const sender = conversation.attendees.find((attendee) => attendee.isSender);
    expect(sender?.displayName).toBe("Casey Bcc: x@evil.example");
  });
});

describe("mail claiming the workspace's own mailbox", () => {
  it("is inbound and marked when it arrives from outside, and no reply goes to the mailbox itself", async () => {
    const workspace = await mailWorkspace();
    const raw = rawMessage({ to: workspace.mailbox, from: `The Team <${workspace.mailbox.toUpperCase()}>` });
    expect(await deliver(raw, workspace.mailbox, "attacker@evil.example")).toEqual({ rejected: null });
    const { conversation, messages } = await onlyConversation(workspace);
    expect(messages[0]).toMatchObject({ direction: "inbound", senderKind: "own_mailbox_from_outside" });
    expect(conversation.lifecycle).toBe("awaiting_reply");
    const reply = await call(`/inbox/conversations/${conversation.id}/messages`, {
      method: "POST",
      key: workspace.key,
      json: { text: "Hello" },
    });
    expect(reply.status).toBe(400);
    expect(((await reply.json()) as { error: { details: { path: string }[] } }).error.details[0]?.path).toBe("body.to");
  });

  it("replies by default only to addresses a request could name", async () => {
    const workspace = await mailWorkspace();
    const raw = rawMessage({ to: workspace.mailbox, from: '"odd sender"@customer.example' });
    expect(await deliver(raw, workspace.mailbox)).toEqual({ rejected: null });
    const { conversation, messages } = await onlyConversation(workspace);
    // Stored as a valid mailbox (quoted again), but no address a request could name as a recipient.
    expect(messages[0]?.from.email).toBe('"odd sender"@customer.example');
    const reply = await call(`/inbox/conversations/${conversation.id}/messages`, {
      method: "POST",
      key: workspace.key,
      json: { text: "Hello" },
    });
    expect(reply.status).toBe(400);
  });
});
