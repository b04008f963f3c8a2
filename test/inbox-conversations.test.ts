import { env } from "cloudflare:test";
import type { Conversation, Message } from "@crm/contracts";
import { newId, regional } from "@crm/db";
import { asc, desc, eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { describe, expect, it } from "vitest";
import {
  type ConversationQuery,
  conversationOrder,
  conversationPage,
  type SearchDriver,
  searchDriver,
} from "../workers/api/src/domain/inbox/conversation-list";
import { matchExpression } from "../workers/api/src/domain/inbox/search";
import { storeMessage } from "../workers/api/src/domain/inbox/store-message";
import { type ErrorBody, errorOf, expectStatus } from "./crm";
import { addInboxMember, addPerson, inboundMessage, inboxWorkspace, nextArrival } from "./inbox";
import { call, cast } from "./stack";

interface Page<T> {
  data: T[];
  pagination: { cursor: string | null; hasMore: boolean };
}

type Workspace = Awaited<ReturnType<typeof inboxWorkspace>>;

const list = (workspace: Workspace, query = "", key = workspace.key) =>
  expectStatus<Page<Conversation>>(200, `/inbox/conversations?workspaceId=${workspace.workspaceId}${query}`, { key });
const subjects = (page: Page<Conversation>) => page.data.map((conversation) => conversation.subject);

/** Three conversations, stored as mail arrives: `older` first, `newest` last. */
async function threeConversations(workspace: Workspace) {
  const store = async (subject: string, sentAtMs: number, extra: Parameters<typeof inboundMessage>[1] = {}) => {
    await nextArrival();
    return storeMessage(workspace.db, inboundMessage(workspace.mailbox, { subject, sentAtMs, ...extra }));
  };
  const older = await store("Invoice overdue", 1_000, { text: "The invoice from March is still open." });
  const middle = await store("Shipping delay", 2_000, {
    from: { email: "zelda@hyrule.example", name: "Zelda Harkonnen" },
    text: "Where is my parcel?",
  });
  const newest = await store("Renewal", 3_000, { text: "We would like to renew for two years." });
  return { older, middle, newest };
}

describe("GET /inbox/conversations", () => {
  it("lists newest first by last message, in stable pages, with the reference's fields", async () => {
    const workspace = await inboxWorkspace();
    const { older, newest } = await threeConversations(workspace);
    // A reply moves the oldest conversation to the top.
    await nextArrival();
    await storeMessage(
      workspace.db,
      inboundMessage(workspace.mailbox, { inReplyTo: await messageIdOf(workspace, older.messageId), sentAtMs: 4_000 }),
    );
    const first = await list(workspace, "&limit=2");
    expect(subjects(first)).toEqual(["Invoice overdue", "Renewal"]);
    expect(first.pagination.hasMore).toBe(true);
    const second = await list(workspace, `&limit=2&cursor=${first.pagination.cursor}`);
    expect(subjects(second)).toEqual(["Shipping delay"]);
    expect(second.pagination).toEqual({ cursor: null, hasMore: false });
    expect(first.data[1]).toMatchObject({
      id: newest.conversationId,
      workspaceId: workspace.workspaceId,
      channel: "email",
      mailbox: workspace.mailbox,
      lastMessageSnippet: "We would like to renew for two years.",
      lastMessageAtMs: expect.any(Number),
      isClosed: false,
      lifecycle: "awaiting_reply",
      hasAttachments: false,
      hasLinkedRecords: false,
      linkedRecordIds: [],
      assignees: [],
      attendees: [
        {
          id: "customer@outside.example",
          displayName: "Casey Customer",
          handle: "customer@outside.example",
          email: "customer@outside.example",
          isSender: true,
          isWorkspaceMember: false,
          recordId: null,
        },
        expect.objectContaining({ email: workspace.mailbox, isSender: false, isWorkspaceMember: true }),
      ],
    });
  });

  it("searches subjects, texts and attendee names and addresses through the FTS index", async () => {
    const workspace = await inboxWorkspace();
    await threeConversations(workspace);
    const search = async (q: string) => subjects(await list(workspace, `&q=${encodeURIComponent(q)}`));
    expect(await search("invoice")).toEqual(["Invoice overdue"]);
    expect(await search("parcel")).toEqual(["Shipping delay"]);
    expect(await search("Harkonnen")).toEqual(["Shipping delay"]);
    expect(await search("zelda@hyrule.example")).toEqual(["Shipping delay"]);
    // Every word must occur, each as a prefix; query syntax typed by a user is only text.
    expect(await search("ren two")).toEqual(["Renewal"]);
    expect(await search("renew parcel")).toEqual([]);
    expect(await search('(renew* "years')).toEqual(["Renewal"]);
    expect(await search("*")).toHaveLength(3);
    expect(await search("customer@outside")).toEqual(["Renewal", "Invoice overdue"]);
    // An address is a phrase of its tokens: the words alone, apart, do not make a match.
    expect(await search("zelda@outside.example")).toEqual([]);
    expect(await search("hyrule.example")).toEqual(["Shipping delay"]);
    expect(await search("NEAR(invoice march) OR -renew subject:parcel")).toEqual([]);
    // Another workspace's mail is never found.
    const other = await inboxWorkspace();
    expect(subjects(await list(other, "&q=invoice"))).toEqual([]);
  });

  it("pages a search: a continued page answers from the cursor", async () => {
    const workspace = await inboxWorkspace();
    const { older, middle, newest } = await threeConversations(workspace);
    // The mailbox's address is on all three; the second page once ran a statement with an empty `order by`.
    const q = `&q=${encodeURIComponent(workspace.mailbox)}&limit=2`;
    const first = await list(workspace, q);
    expect(first.data.map((conversation) => conversation.id)).toEqual([newest.conversationId, middle.conversationId]);
    const second = await list(workspace, `${q}&cursor=${encodeURIComponent(first.pagination.cursor as string)}`);
    expect(second.data.map((conversation) => conversation.id)).toEqual([older.conversationId]);
    expect(second.pagination).toEqual({ cursor: null, hasMore: false });
  });

  it("filters by closed state, linked records and assignee, and applies inbox views", async () => {
    const workspace = await inboxWorkspace();
    const { older, middle, newest } = await threeConversations(workspace);
    const person = await addPerson(workspace.key, workspace.workspaceId, "Ada", "ada@customer.example");
    const patch = (conversationId: string, json: unknown) =>
      expectStatus(200, `/inbox/conversations/${conversationId}`, { method: "PATCH", key: workspace.key, json });
    await patch(older.conversationId, { isClosed: true });
    await patch(middle.conversationId, { linkedRecordIds: [person] });
    const member = await addInboxMember(workspace, "member", "all");
    await patch(newest.conversationId, { assigneeUserIds: [member.userId] });

    expect(subjects(await list(workspace, "&isClosed=true"))).toEqual(["Invoice overdue"]);
    expect(subjects(await list(workspace, "&isClosed=false"))).toEqual(["Renewal", "Shipping delay"]);
    expect(subjects(await list(workspace, "&hasLinkedRecords=true"))).toEqual(["Shipping delay"]);
    expect(subjects(await list(workspace, "&hasLinkedRecords=false"))).toEqual(["Renewal", "Invoice overdue"]);
    expect(subjects(await list(workspace, `&assigneeUserId=${member.userId}`))).toEqual(["Renewal"]);
    expect(subjects(await list(workspace, `&assigneeUserId=${workspace.userId}`))).toEqual([]);

    const view = async (values: Partial<typeof regional.inboxViews.$inferInsert>) => {
      const id = newId("ivw");
      const now = Date.now();
      await workspace.db.insert(regional.inboxViews).values({
        id,
        workspaceId: workspace.workspaceId,
        name: "View",
        visibility: "workspace",
        config: { filter: {}, sorts: [] },
        isSystem: false,
        createdByUserId: workspace.userId,
        createdAt: now,
        updatedAt: now,
        ...values,
      });
      return id;
    };
    const open = await view({ config: { filter: { isClosed: false }, sorts: [{ field: "lastMessageAtMs", direction: "asc" }] } });
    expect(subjects(await list(workspace, `&viewId=${open}`))).toEqual(["Shipping delay", "Renewal"]);
    // The request's own filters narrow the view's.
    expect(subjects(await list(workspace, `&viewId=${open}&hasLinkedRecords=false`))).toEqual(["Renewal"]);
    const searched = await view({ config: { filter: { q: "parcel", mailbox: workspace.mailbox.toUpperCase() }, sorts: [] } });
    expect(subjects(await list(workspace, `&viewId=${searched}`))).toEqual(["Shipping delay"]);
    const closed = await view({ systemViewKey: "closed", isSystem: true, name: "Closed" });
    expect(subjects(await list(workspace, `&viewId=${closed}`))).toEqual(["Invoice overdue"]);
    const mine = await view({ systemViewKey: "assigned_to_me", isSystem: true, name: "Assigned to me" });
    expect(subjects(await list(workspace, `&viewId=${mine}`, member.key))).toEqual(["Renewal"]);
    expect(subjects(await list(workspace, `&viewId=${mine}`))).toEqual([]);

    // Views the caller may not see, and views of another workspace, are 404.
    const personal = await view({ visibility: "personal", createdByUserId: member.userId });
    const restricted = await view({ visibility: "restricted", createdByUserId: member.userId });
    for (const viewId of [personal, restricted, newId("ivw")]) {
      const body = await expectStatus<ErrorBody>(
        404,
        `/inbox/conversations?workspaceId=${workspace.workspaceId}&viewId=${viewId}`,
        {
          key: workspace.key,
        },
      );
      expect(body.error.message).toBe("Inbox view not found");
    }
    await workspace.db.insert(regional.inboxViewMembers).values({ viewId: restricted, userId: workspace.userId });
    expect(subjects(await list(workspace, `&viewId=${restricted}`))).toHaveLength(3);
    expect(subjects(await list(workspace, `&viewId=${personal}`, member.key))).toHaveLength(3);
    const elsewhere = await inboxWorkspace();
    await expectStatus(404, `/inbox/conversations?workspaceId=${elsewhere.workspaceId}&viewId=${open}`, { key: elsewhere.key });
  });

  it("refuses malformed parameters and cursors of another list", async () => {
    const workspace = await inboxWorkspace();
    await threeConversations(workspace);
    for (const [query, path] of [
      ["&hasLinkedRecords=yes", "query.hasLinkedRecords"],
      ["&isClosed=1", "query.isClosed"],
      [`&q=${"x".repeat(201)}`, "query.q"],
      ["&q=", "query.q"],
      ["&assigneeUserId=bob", "query.assigneeUserId"],
      ["&limit=0", "query.limit"],
    ]) {
      const body = await expectStatus<ErrorBody>(400, `/inbox/conversations?workspaceId=${workspace.workspaceId}${query}`, {
        key: workspace.key,
      });
      expect(body.error.details?.map((detail) => detail.path)).toContain(path);
    }
    await expectStatus(400, "/inbox/conversations", { key: workspace.key });
    const { pagination } = await list(workspace, "&limit=1");
    const body = await expectStatus<ErrorBody>(
      400,
      `/inbox/conversations?workspaceId=${workspace.workspaceId}&isClosed=false&limit=1&cursor=${pagination.cursor}`,
      { key: workspace.key },
    );
    expect(body.error.code).toBe("invalid_cursor");
  });

  it("serves every filter from an index: no scan of the workspace's conversations, no sort unless searching", async () => {
    const db = drizzle(env.US_DB_1);
    const plan = async (query: Partial<ConversationQuery>) => {
      const full: ConversationQuery = { workspaceId: "ws_plan", linkedOnly: false, filters: [], sort: undefined, ...query };
      const orderBy = conversationOrder(full.sort).map((key) => (key.direction === "asc" ? asc(key.column) : desc(key.column)));
      const { sql, params } = conversationPage(db, full, { after: undefined, orderBy, limit: 51 }).toSQL();
      const rows = await env.US_DB_1.prepare(`explain query plan ${sql}`)
        .bind(...params)
        .all<{ detail: string }>();
      return rows.results.map((row) => row.detail).join("\n");
    };
    const served = (text: string, index: string) => {
      expect(text).toMatch(new RegExp(`SEARCH conversations USING (COVERING )?INDEX ${index} `));
      expect(text).not.toMatch(/SCAN conversations/);
      expect(text).not.toMatch(/TEMP B-TREE/);
    };
    served(await plan({}), "conversations_workspace_last_message");
    served(await plan({ filters: [{ isClosed: false }] }), "conversations_workspace_closed");
    served(await plan({ filters: [{ hasLinkedRecords: true }] }), "conversations_workspace_linked");
    served(await plan({ linkedOnly: true }), "conversations_workspace_linked");
    served(await plan({ filters: [{ mailbox: "sales@acme.example" }] }), "conversations_workspace_mailbox");
    served(await plan({ sort: { field: "createdAt", direction: "asc" } }), "conversations_workspace_created");
    const assigned = await plan({ filters: [{ assigneeUserIds: ["usr_plan"] }] });
    served(assigned, "conversations_workspace_last_message");
    expect(assigned).toMatch(
      /SEARCH conversation_assignees (EXISTS )?USING (PRIMARY KEY|COVERING INDEX sqlite_autoindex_conversation_assignees_1)/,
    );
    // A search reads the FTS index, then the matching conversations by primary key, and sorts only those.
    const searched = await plan({ filters: [{ q: "renewal" }] });
    expect(searched).toMatch(/SCAN inbox_search VIRTUAL TABLE INDEX/);
    expect(searched).not.toMatch(/SCAN conversations/);
  });
});

describe("search: the FTS expression and the driving side", () => {
  it("quotes every word, and makes an address one phrase of consecutive tokens", () => {
    expect(matchExpression("refund")).toBe('"refund"*');
    expect(matchExpression("ada@customer.example")).toBe('"ada customer example"');
    expect(matchExpression("refund ada@customer.example")).toBe('"refund"* "ada customer example"');
    expect(matchExpression('"a" * NEAR(b c) -d subject:e ^f')).toBe('"a"* "NEAR"* "b"* "c"* "d"* "subject"* "e"* "f"*');
    expect(matchExpression('x@"y" OR z.*')).toBe('"x y" "OR"* "z"*');
    expect(matchExpression("@ . * ()")).toBeNull();
    expect(matchExpression(Array.from({ length: 20 }, (_, i) => `w${i}`).join(" "))?.split(" ")).toHaveLength(16);
  });

  it("gives the same pages and cursors whether the match set or the list index drives", async () => {
    const workspace = await inboxWorkspace();
    // Ten matches of `refund`, five from Ada (two at the same last-message time, so the id breaks the tie) among noise.
    for (let i = 0; i < 16; i++) {
      await storeMessage(
        workspace.db,
        inboundMessage(workspace.mailbox, {
          subject: `Thread ${i}`,
          text: i % 3 === 0 ? "Nothing to see" : "Please refund my order",
          from: { email: i % 2 ? "ada@customer.example" : "bob@customer.example", name: null },
          sentAtMs: 1_000 + (i === 7 ? 5 : i),
        }),
      );
    }
    const query: ConversationQuery = {
      workspaceId: workspace.workspaceId,
      linkedOnly: false,
      filters: [{ q: "refund" }, { q: "ada@customer.example" }],
      sort: undefined,
    };
    // The search drives, and its page statement picks the side: cap 100, the match set read by id;
    // cap 1, too broad, the list index walked. Without a driver, every search is a membership test.
    expect(await searchDriver(workspace.db, query, 100)).toEqual({ expression: '"refund"*', cap: 100 });
    // Through the route's own pagination (cursors included), both paths page alike.
    const { paginate } = await import("../workers/api/src/pagination");
    const pages = async (driver: SearchDriver | undefined) => {
      const seen: { ids: string[]; cursor: string | null }[] = [];
      let cursor: string | undefined;
      do {
        const page = await paginate(
          {
            scope: "search-test",
            limit: 2,
            cursor,
            order: conversationOrder(undefined),
            fetch: (position) => conversationPage(workspace.db, query, position, driver),
          },
          "secret",
        );
        seen.push({ ids: page.data.map((row) => row.id), cursor: page.pagination.cursor });
        cursor = page.pagination.cursor ?? undefined;
      } while (cursor);
      return seen;
    };
    const driven = await pages(await searchDriver(workspace.db, query, 100));
    const walked = await pages(await searchDriver(workspace.db, query, 1));
    const tested = await pages(undefined);
    expect(driven).toEqual(tested);
    expect(walked).toEqual(tested);
    expect(driven.flatMap((page) => page.ids)).toHaveLength(5);
  });

  it("reads only the side the match count picks: a rare word never walks the workspace's list", async () => {
    const workspace = await inboxWorkspace();
    for (let i = 0; i < 40; i++) {
      await storeMessage(
        workspace.db,
        inboundMessage(workspace.mailbox, { subject: `Noise ${i}`, text: "Nothing to see", sentAtMs: 1_000 + i }),
      );
    }
    await storeMessage(workspace.db, inboundMessage(workspace.mailbox, { subject: "Zebra", text: "A zebra", sentAtMs: 2_000 }));
    const query: ConversationQuery = {
      workspaceId: workspace.workspaceId,
      linkedOnly: false,
      filters: [{ q: "zebra" }],
      sort: undefined,
    };
    const orderBy = conversationOrder(undefined).map((key) => desc(key.column));
    const rowsRead = async (cap: number) => {
      const { sql, params } = conversationPage(
        workspace.db,
        query,
        { after: undefined, orderBy, limit: 51 },
        { expression: '"zebra"*', cap },
      ).toSQL();
      const { results, meta } = await env.US_DB_1.prepare(sql)
        .bind(...params)
        .all<{ subject: string }>();
      expect(results.map((row) => row.subject)).toEqual(["Zebra"]);
      return meta.rows_read;
    };
    // By id: the match set and its one conversation, not the 41 of the list index.
    expect(await rowsRead(500)).toBeLessThan(40);
    // Forced to walk (cap 0), the list index is read in order: the other branch is what read little.
    expect(await rowsRead(0)).toBeGreaterThan(40);
  });

  it("reads a small match set by primary key and walks the list index for a broad one, in one statement", async () => {
    const db = drizzle(env.US_DB_1);
    const full: ConversationQuery = {
      workspaceId: "ws_plan",
      linkedOnly: true,
      filters: [{ q: "renewal", isClosed: false }],
      sort: undefined,
    };
    const orderBy = conversationOrder(undefined).map((key) => desc(key.column));
    const { sql, params } = conversationPage(
      db,
      full,
      { after: undefined, orderBy, limit: 51 },
      { expression: '"renewal"*', cap: 500 },
    ).toSQL();
    const rows = await env.US_DB_1.prepare(`explain query plan ${sql}`)
      .bind(...params)
      .all<{ detail: string }>();
    const text = rows.results.map((row) => row.detail).join("\n");
    // The match set read once; the outer page reads its at most 2 × 51 ids by primary key.
    expect(text.match(/SCAN inbox_search VIRTUAL TABLE/g)).toHaveLength(1);
    expect(text).toMatch(/SEARCH conversations USING INDEX sqlite_autoindex_conversations_1 \(id=\?\)/);
    // The broad side walks the list index that holds the filters' columns, in list order.
    expect(text).toMatch(/SEARCH conversations USING INDEX conversations_workspace_(linked|closed) \(workspace_id=\? AND/);
    expect(text).not.toMatch(/SCAN conversations/);
  });
});

async function messageIdOf(workspace: Workspace, id: string): Promise<string> {
  const [row] = await workspace.db.select().from(regional.messages).where(eq(regional.messages.id, id));
  return row?.messageIdHeader as string;
}

describe("one conversation and its messages", () => {
  it("reads a conversation and its messages, oldest first, with sanitized HTML and attachment metadata", async () => {
    const workspace = await inboxWorkspace();
    const first = await storeMessage(
      workspace.db,
      inboundMessage(workspace.mailbox, {
        messageId: "<one@mail.test>",
        html: "<p>Hi <img src=x onerror=alert(1)>there</p>",
        text: "Hi there",
        sentAtMs: 1_000,
        attachments: [{ id: "att_0000test01", filename: "quote.pdf", contentType: "application/pdf", size: 1234, r2Key: "x/1" }],
      }),
    );
    await nextArrival();
    await storeMessage(
      workspace.db,
      inboundMessage(workspace.mailbox, {
        direction: "outbound",
        conversationId: first.conversationId,
        from: { email: workspace.mailbox, name: "Inbox" },
        to: [{ email: "customer@outside.example", name: null }],
        messageId: "<two@mail.test>",
        inReplyTo: "<one@mail.test>",
        references: ["<one@mail.test>"],
        text: "Answer",
        sentAtMs: 2_000,
      }),
    );
    const { conversation } = await expectStatus<{ conversation: Conversation }>(
      200,
      `/inbox/conversations/${first.conversationId}`,
      {
        key: workspace.key,
      },
    );
    expect(conversation).toMatchObject({
      id: first.conversationId,
      hasAttachments: true,
      lifecycle: "replied",
      lastMessageAtMs: expect.any(Number),
    });

    const page = await expectStatus<Page<Message>>(200, `/inbox/conversations/${first.conversationId}/messages?limit=1`, {
      key: workspace.key,
    });
    expect(page.data[0]).toEqual({
      id: first.messageId,
      conversationId: first.conversationId,
      workspaceId: workspace.workspaceId,
      direction: "inbound",
      senderKind: "person",
      from: { email: "customer@outside.example", name: "Casey Customer" },
      to: [{ email: workspace.mailbox, name: null }],
      cc: [],
      subject: "Question about pricing",
      text: "Hi there",
      html: "<p>Hi there</p>",
      sentAtMs: 1_000,
      createdAt: expect.any(Number),
      messageId: "one@mail.test",
      inReplyTo: null,
      references: [],
      attachments: [{ id: "att_0000test01", filename: "quote.pdf", contentType: "application/pdf", size: 1234 }],
    });
    const next = await expectStatus<Page<Message>>(
      200,
      `/inbox/conversations/${first.conversationId}/messages?limit=1&cursor=${page.pagination.cursor}`,
      { key: workspace.key },
    );
    expect(next.data.map((message) => [message.direction, message.text, message.inReplyTo, message.references])).toEqual([
      ["outbound", "Answer", "one@mail.test", ["one@mail.test"]],
    ]);
    expect(next.pagination.hasMore).toBe(false);
  });

  it("closes, assigns and links by hand; attendee links stay when the hand-made ones are replaced", async () => {
    const workspace = await inboxWorkspace();
    const ada = await addPerson(workspace.key, workspace.workspaceId, "Ada", "ada@customer.example");
    const deal = await addPerson(workspace.key, workspace.workspaceId, "Bea", "bea@customer.example");
    const stored = await storeMessage(
      workspace.db,
      inboundMessage(workspace.mailbox, { from: { email: "ada@customer.example", name: "Ada" } }),
    );
    const member = await addInboxMember(workspace, "member", "all");
    const path = `/inbox/conversations/${stored.conversationId}`;
    const patch = async (json: unknown) =>
      (await expectStatus<{ conversation: Conversation }>(200, path, { method: "PATCH", key: workspace.key, json })).conversation;

    expect(await patch({ isClosed: true, assigneeUserIds: [member.userId, member.userId] })).toMatchObject({
      isClosed: true,
      assignees: [{ id: member.userId }],
      linkedRecordIds: [ada],
      hasLinkedRecords: true,
    });
    expect((await patch({ linkedRecordIds: [deal] })).linkedRecordIds.sort()).toEqual([ada, deal].sort());
    // Replacing the hand-made links leaves the attendee link; an empty assignee list unassigns.
    expect(await patch({ linkedRecordIds: [], assigneeUserIds: [], isClosed: false })).toMatchObject({
      linkedRecordIds: [ada],
      hasLinkedRecords: true,
      assignees: [],
      isClosed: false,
    });
    const records = await expectStatus<Page<Conversation>>(200, `/records/${deal}/conversations`, { key: workspace.key });
    expect(records.data).toEqual([]);
    await patch({ linkedRecordIds: [deal] });
    const linked = await expectStatus<Page<Conversation>>(200, `/records/${deal}/conversations`, { key: workspace.key });
    expect(linked.data.map((conversation) => conversation.id)).toEqual([stored.conversationId]);

    // A conversation without attendee matches loses hasLinkedRecords with its last hand-made link.
    const unmatched = await storeMessage(workspace.db, inboundMessage(workspace.mailbox));
    const unmatchedPath = `/inbox/conversations/${unmatched.conversationId}`;
    await expectStatus(200, unmatchedPath, { method: "PATCH", key: workspace.key, json: { linkedRecordIds: [deal] } });
    const unlinked = await expectStatus<{ conversation: Conversation }>(200, unmatchedPath, {
      method: "PATCH",
      key: workspace.key,
      json: { linkedRecordIds: [] },
    });
    expect(unlinked.conversation).toMatchObject({ hasLinkedRecords: false, linkedRecordIds: [] });
  });

  it("refuses assignees outside the workspace, foreign or deleted records, and unknown properties", async () => {
    const workspace = await inboxWorkspace();
    const stored = await storeMessage(workspace.db, inboundMessage(workspace.mailbox));
    const path = `/inbox/conversations/${stored.conversationId}`;
    const other = await inboxWorkspace();
    const foreignPerson = await addPerson(other.key, other.workspaceId, "Cy", "cy@customer.example");
    const deleted = await addPerson(workspace.key, workspace.workspaceId, "Dee", "dee@customer.example");
    await expectStatus(200, `/records/${deleted}`, { method: "DELETE", key: workspace.key });
    for (const [json, detail] of [
      [{ assigneeUserIds: [other.userId] }, "body.assigneeUserIds.0"],
      [{ linkedRecordIds: [foreignPerson] }, "body.linkedRecordIds.0"],
      [{ linkedRecordIds: [deleted] }, "body.linkedRecordIds.0"],
      [{ isClosed: "yes" }, "body.isClosed"],
      [{ subject: "New subject" }, "body.subject"],
    ] as const) {
      const body = await expectStatus<ErrorBody>(400, path, { method: "PATCH", key: workspace.key, json });
      expect(body.error.details?.map((item) => item.path)).toContain(detail);
    }
  });
});

describe("PATCH /inbox/conversations/{id} at once", () => {
  it("two PATCHes of one conversation at once leave exactly one of them, never a mix", async () => {
    const workspace = await inboxWorkspace();
    const [first, second] = await Promise.all([
      addPerson(workspace.key, workspace.workspaceId, "Ada", "ada@customer.example"),
      addPerson(workspace.key, workspace.workspaceId, "Bea", "bea@customer.example"),
    ]);
    const [one, two] = await Promise.all([
      addInboxMember(workspace, "member", "all"),
      addInboxMember(workspace, "member", "all"),
    ]);
    const stored = await storeMessage(workspace.db, inboundMessage(workspace.mailbox));
    const path = `/inbox/conversations/${stored.conversationId}`;
    const bodies = [
      { isClosed: true, assigneeUserIds: [one.userId], linkedRecordIds: [first] },
      { isClosed: false, assigneeUserIds: [two.userId], linkedRecordIds: [second] },
    ];
    const answers = await Promise.all(bodies.map((json) => call(path, { method: "PATCH", key: workspace.key, json })));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    const { conversation } = await expectStatus<{ conversation: Conversation }>(200, path, { key: workspace.key });
    const state = {
      isClosed: conversation.isClosed,
      assigneeUserIds: conversation.assignees.map((assignee) => assignee.id),
      linkedRecordIds: conversation.linkedRecordIds,
    };
    expect(bodies).toContainEqual(state);
  });

  it("another organization's record, in the region and across regions, has no conversations for the caller (404)", async () => {
    const { alice, erin, dave, initech, globex } = await cast();
    for (const [key, workspaceId] of [
      [erin.apiKey, initech.workspaces[0]?.id],
      [dave.apiKey, globex.workspaces[0]?.id],
    ] as const) {
      const page = await expectStatus<Page<Conversation>>(200, `/inbox/conversations?workspaceId=${workspaceId}&limit=100`, {
        key,
      });
      const recordId = page.data.flatMap((conversation) => conversation.linkedRecordIds)[0];
      expect(recordId).toMatch(/^rec_/);
      await expectStatus(200, `/records/${recordId}/conversations`, { key });
      await expectStatus(404, `/records/${recordId}/conversations`, { key: alice.apiKey });
    }
  });
});

describe("inbox access", () => {
  it("unknown and foreign conversations are 404 on every route", async () => {
    const { alice, erin, dave, initech, globex } = await cast();
    for (const [key, workspaceId] of [
      [erin.apiKey, initech.workspaces[0]?.id],
      [dave.apiKey, globex.workspaces[0]?.id],
    ] as const) {
      const page = await expectStatus<Page<Conversation>>(200, `/inbox/conversations?workspaceId=${workspaceId}`, { key });
      const foreign = page.data[0]?.id as string;
      expect(foreign).toMatch(/^conv_/);
      for (const id of [foreign, newId("conv")]) {
        for (const [method, path] of [
          ["GET", `/inbox/conversations/${id}`],
          ["GET", `/inbox/conversations/${id}/messages`],
          ["PATCH", `/inbox/conversations/${id}`],
        ] as const) {
          const body = await expectStatus<ErrorBody>(404, path, {
            method,
            key: alice.apiKey,
            ...(method === "PATCH" ? { json: { isClosed: true } } : {}),
          });
          expect(body.error.message).toBe("Conversation not found");
        }
      }
      await expectStatus(404, `/inbox/conversations?workspaceId=${workspaceId}`, { key: alice.apiKey });
    }
    await expectStatus(404, `/records/${newId("rec")}/conversations`, { key: alice.apiKey });
  });

  it("bob (record_read) sees only conversations linked to a record, in lists and by id", async () => {
    const { alice, bob, sales } = await cast();
    const all = await expectStatus<Page<Conversation>>(200, `/inbox/conversations?workspaceId=${sales.id}&limit=100`, {
      key: alice.apiKey,
    });
    const linked = all.data.find((conversation) => conversation.subject === "Question about the renewal") as Conversation;
    const unlinked = all.data.find((conversation) => conversation.subject === "Partnership idea") as Conversation;
    expect(linked.hasLinkedRecords).toBe(true);
    expect(unlinked.hasLinkedRecords).toBe(false);

    const seen = await expectStatus<Page<Conversation>>(200, `/inbox/conversations?workspaceId=${sales.id}&limit=100`, {
      key: bob.apiKey,
    });
    expect(seen.data.map((conversation) => conversation.id)).toContain(linked.id);
    expect(seen.data.every((conversation) => conversation.hasLinkedRecords)).toBe(true);
    const notLinked = await expectStatus<Page<Conversation>>(
      200,
      `/inbox/conversations?workspaceId=${sales.id}&hasLinkedRecords=false`,
      { key: bob.apiKey },
    );
    expect(notLinked.data).toEqual([]);
    await expectStatus(200, `/inbox/conversations/${linked.id}/messages`, { key: bob.apiKey });
    await expectStatus(404, `/inbox/conversations/${unlinked.id}`, { key: bob.apiKey });
    await expectStatus(404, `/inbox/conversations/${unlinked.id}/messages`, { key: bob.apiKey });
  });

  it("pages stay full under record-scoped access: the filter is in SQL, not applied after the page", async () => {
    const workspace = await inboxWorkspace();
    const person = await addPerson(workspace.key, workspace.workspaceId, "Ada", "ada@customer.example");
    for (let i = 0; i < 6; i++) {
      const linked = i % 3 === 0;
      await nextArrival();
      await storeMessage(
        workspace.db,
        inboundMessage(workspace.mailbox, {
          subject: `${linked ? "linked" : "other"} ${i}`,
          sentAtMs: 1_000 + i,
          ...(linked ? { from: { email: "ada@customer.example", name: "Ada" } } : {}),
        }),
      );
    }
    const reader = await addInboxMember(workspace, "member", "record_read");
    const first = await list(workspace, "&limit=1", reader.key);
    expect(subjects(first)).toEqual(["linked 3"]);
    const second = await list(workspace, `&limit=1&cursor=${first.pagination.cursor}`, reader.key);
    expect(subjects(second)).toEqual(["linked 0"]);
    expect(second.pagination.hasMore).toBe(false);
    const replier = await addInboxMember(workspace, "member", "record_reply");
    expect(subjects(await list(workspace, "", replier.key))).toEqual(["linked 3", "linked 0"]);
    const records = await expectStatus<Page<Conversation>>(200, `/records/${person}/conversations`, { key: reader.key });
    expect(subjects(records)).toEqual(["linked 3", "linked 0"]);
  });

  it("viewers read but cannot change conversations (403); scopes are inbox:read and inbox:write", async () => {
    const { carol, sales, alice } = await cast();
    const page = await expectStatus<Page<Conversation>>(200, `/inbox/conversations?workspaceId=${sales.id}&limit=1`, {
      key: carol.apiKey,
    });
    const id = page.data[0]?.id as string;
    const body = await expectStatus<ErrorBody>(403, `/inbox/conversations/${id}`, {
      method: "PATCH",
      key: carol.apiKey,
      json: { isClosed: true },
    });
    expect(body.error.code).toBe("forbidden");
    const response = await call(`/inbox/conversations/${id}`, {
      method: "PATCH",
      key: (await cast()).acme.readOnlyKey as string,
      json: { isClosed: true },
    });
    expect(response.status).toBe(403);
    expect((await errorOf(response)).code).toBe("insufficient_scope");
    await expectStatus(200, `/inbox/conversations/${id}`, { key: alice.apiKey });
  });
});

describe("paging while replies arrive", () => {
  it("never skips a conversation that existed when the walk began, however many move ahead of the cursor", async () => {
    const workspace = await inboxWorkspace();
    const stored: { conversationId: string; messageId: string }[] = [];
    for (let i = 0; i < 30; i++) {
      await nextArrival();
      const messageId = `<walk-${i}@mail.test>`;
      const { conversationId } = await storeMessage(
        workspace.db,
        inboundMessage(workspace.mailbox, { subject: `Walk ${i}`, messageId }),
      );
      stored.push({ conversationId, messageId });
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let replies = 0;
    do {
      const page = await list(workspace, `&limit=4${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      seen.push(...page.data.map((conversation) => conversation.id));
      cursor = page.pagination.cursor;
      // Replies to the two oldest conversations not served yet: each moves to the top of the inbox.
      for (const target of stored.filter((entry) => !seen.includes(entry.conversationId)).slice(0, 2)) {
        await nextArrival();
        await storeMessage(workspace.db, inboundMessage(workspace.mailbox, { inReplyTo: target.messageId, text: "A reply" }));
        replies++;
      }
      // A conversation started meanwhile is not part of this walk.
      await storeMessage(workspace.db, inboundMessage(workspace.mailbox, { subject: "Started meanwhile" }));
    } while (cursor);
    expect(replies).toBeGreaterThan(10);
    expect(new Set(seen).size).toBe(seen.length);
    expect(new Set(seen)).toEqual(new Set(stored.map((entry) => entry.conversationId)));
  });

  it("never skips a conversation of a record that existed when the walk began (GET /records/{id}/conversations)", async () => {
    const workspace = await inboxWorkspace();
    const from = { email: "ada@customer.example", name: "Ada" };
    const person = await addPerson(workspace.key, workspace.workspaceId, "Ada", from.email);
    const stored: { conversationId: string; messageId: string }[] = [];
    for (let i = 0; i < 50; i++) {
      await nextArrival();
      const messageId = `<record-walk-${i}@mail.test>`;
      const { conversationId } = await storeMessage(
        workspace.db,
        inboundMessage(workspace.mailbox, { subject: `Record walk ${i}`, messageId, from }),
      );
      stored.push({ conversationId, messageId });
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let replies = 0;
    do {
      const query: string = cursor ? `?limit=4&cursor=${encodeURIComponent(cursor)}` : "?limit=4";
      const page: Page<Conversation> = await expectStatus<Page<Conversation>>(200, `/records/${person}/conversations${query}`, {
        key: workspace.key,
      });
      seen.push(...page.data.map((conversation) => conversation.id));
      cursor = page.pagination.cursor;
      // Replies to the two oldest conversations not served yet: each moves ahead of the cursor.
      for (const target of stored.filter((entry) => !seen.includes(entry.conversationId)).slice(0, 2)) {
        await nextArrival();
        await storeMessage(
          workspace.db,
          inboundMessage(workspace.mailbox, { inReplyTo: target.messageId, from, text: "A reply" }),
        );
        replies++;
      }
      await storeMessage(workspace.db, inboundMessage(workspace.mailbox, { subject: "Started meanwhile", from }));
    } while (cursor);
    expect(replies).toBeGreaterThan(10);
    expect(new Set(seen).size).toBe(seen.length);
    expect(new Set(seen)).toEqual(new Set(stored.map((entry) => entry.conversationId)));
  });
});
