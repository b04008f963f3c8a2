import { env } from "cloudflare:test";
import { drizzle } from "drizzle-orm/d1";
import { beforeAll, describe, expect, it } from "vitest";
import { createSourceManagedTask } from "../workers/api/src/domain/tasks/service";
import { type ErrorBody, expectStatus, objectTypesOf, unique } from "./crm";
import { addConversation, outboxCount } from "./fixtures";
import { cast } from "./stack";

interface Task {
  id: string;
  workspaceId: string;
  recordId: string;
  title: string;
  status: string;
  descriptionHtml: string;
  descriptionPlain: string;
  dueAt: number | null;
  assigneeUserIds: string[];
  linkedResources: { resourceType: string; resourceId: string; label: string; channel: string }[];
  source: { resourceType: string; resourceId: string } | null;
  createdBy: string;
  createdAt: number;
  updatedAt: number;
}

interface Note {
  id: string;
  recordId: string;
  title: string;
  contentHtml: string;
  contentPlain: string;
}

type Page<T> = { data: T[]; pagination: { cursor: string | null; hasMore: boolean } };

let key: string;
let recordId: string;
let salesId: string;

async function newRecord() {
  const { sales } = await cast();
  const [people] = await objectTypesOf(key, sales.id);
  return (
    await expectStatus<{ record: { id: string } }>(201, "/records", {
      method: "POST",
      key,
      json: { objectTypeId: people?.id, fields: { name: `Person ${unique()}` } },
    })
  ).record.id;
}

beforeAll(async () => {
  const { alice, sales } = await cast();
  key = alice.apiKey;
  salesId = sales.id;
  recordId = await newRecord();
});

const createTask = (body: Record<string, unknown>, record = recordId, status = 201) =>
  expectStatus<{ task: Task } & ErrorBody>(status, `/records/${record}/tasks`, { method: "POST", key, json: body });

describe("tasks", () => {
  it("are created on a record with assignees, a linked conversation and sanitized HTML", async () => {
    const { bob, alice } = await cast();
    const conversationId = await addConversation("us", salesId, "Renewal question");
    const { task } = await createTask({
      title: "Send the proposal",
      descriptionHtml:
        '<p onclick="steal()">Include <b>pricing</b> &amp; terms<script>alert(1)</script></p><a href="javascript:alert(1)">x</a><a href="https://example.com" target="_blank">site</a><div style="background:url(https://evil.example/x.png)">styled</div><iframe src="https://evil.example"></iframe>',
      dueAt: 1767571200000,
      assigneeUserIds: [bob.id, alice.id, bob.id],
      conversationId,
    });
    expect(task).toEqual({
      id: expect.stringMatching(/^task_/),
      workspaceId: salesId,
      recordId,
      title: "Send the proposal",
      status: "todo",
      descriptionHtml:
        '<p>Include <b>pricing</b> &amp; terms</p><a>x</a><a href="https://example.com" target="_blank" rel="noopener noreferrer nofollow">site</a><div>styled</div>',
      descriptionPlain: "Include pricing & terms\n\nxsite\nstyled",
      dueAt: 1767571200000,
      assigneeUserIds: [bob.id, alice.id],
      assignees: [
        { id: bob.id, name: bob.name, email: bob.email },
        { id: alice.id, name: alice.name, email: alice.email },
      ],
      linkedResources: [
        { resourceType: "conversation", resourceId: conversationId, label: "Renewal question", channel: "email" },
      ],
      source: null,
      createdBy: alice.id,
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
    });
    expect(await outboxCount("task.created", task.id)).toBe(1);
    expect((await expectStatus<{ task: Task }>(200, `/tasks/${task.id}`, { key })).task).toEqual(task);
  });

  it("refuse bad input", async () => {
    const { dave } = await cast();
    const otherConversation = await addConversation("us", "ws_elsewhere000", "x");
    const cases: [Record<string, unknown>, string][] = [
      [{ title: "" }, "body.title"],
      [{ title: "x", assigneeUserIds: [dave.id] }, "body.assigneeUserIds.0"],
      [{ title: "x", status: "blocked" }, "body.status"],
      [{ title: "x", dueAt: "tomorrow" }, "body.dueAt"],
      [{ title: "x", descriptionHtml: "x".repeat(100_001) }, "body.descriptionHtml"],
      [{ title: "x", source: { resourceType: "meeting", resourceId: "mtg_123456" } }, "body.source"],
    ];
    for (const [body, path] of cases) {
      const error = await createTask(body, recordId, 400);
      expect(
        error.error.details?.map((detail) => detail.path),
        JSON.stringify(body).slice(0, 80),
      ).toContain(path);
    }
    await createTask({ title: "x" }, "rec_unknown000000", 404);
    // Another workspace's conversation is the 404 of an unknown one (reference rule 8).
    const elsewhere = await createTask({ title: "x", conversationId: otherConversation }, recordId, 404);
    expect(elsewhere.error.details).toEqual([{ path: "body.conversationId", message: expect.any(String) }]);
  });

  it("are listed per record and per workspace with filters, and deleted ones never come back", async () => {
    const { bob } = await cast();
    const record = await newRecord();
    const made: Task[] = [];
    for (let i = 0; i < 6; i++) {
      made.push(
        (
          await createTask(
            { title: `T${i}`, status: i % 2 ? "done" : "todo", dueAt: 1000 * (i + 1), assigneeUserIds: i < 3 ? [bob.id] : [] },
            record,
          )
        ).task,
      );
    }
    await expectStatus(200, `/tasks/${made[1]?.id}`, { method: "DELETE", key });
    await expectStatus(200, `/tasks/${made[4]?.id}`, { method: "DELETE", key });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Page<Task> = await expectStatus<Page<Task>>(
        200,
        `/records/${record}/tasks?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
        { key },
      );
      seen.push(...page.data.map((task) => task.title));
      cursor = page.pagination.cursor;
    } while (cursor);
    expect(seen).toEqual(["T0", "T2", "T3", "T5"]);
    const done = await expectStatus<Page<Task>>(200, `/records/${record}/tasks?status=done`, { key });
    expect(done.data.map((task) => task.title)).toEqual(["T3", "T5"]);
    const mine = await expectStatus<Page<Task>>(
      200,
      `/tasks?workspaceId=${salesId}&assigneeUserId=${bob.id}&status=todo&dueBeforeMs=3500&limit=100`,
      { key },
    );
    expect(mine.data.filter((task) => task.recordId === record).map((task) => task.title)).toEqual(["T0", "T2"]);
    const all = await expectStatus<Page<Task>>(200, `/tasks?workspaceId=${salesId}&limit=100`, { key });
    expect(all.data.map((task) => task.id)).not.toContain(made[1]?.id);
    await expectStatus(404, `/tasks/${made[1]?.id}`, { key });
    await expectStatus(404, `/tasks/${made[1]?.id}`, { method: "PATCH", key, json: { title: "back" } });
    await expectStatus(404, `/tasks/${made[1]?.id}`, { method: "DELETE", key });
    expect(await outboxCount("task.deleted", made[1]?.id as string)).toBe(1);
    await expectStatus(400, `/tasks?limit=10`, { key });
  });

  it("are updated, with sanitized descriptions and derived plain text", async () => {
    const { task } = await createTask({ title: "Draft" });
    const { task: updated } = await expectStatus<{ task: Task }>(200, `/tasks/${task.id}`, {
      method: "PATCH",
      key,
      json: {
        title: "Final",
        status: "in_progress",
        dueAt: null,
        descriptionHtml: "<h1>Plan</h1><p>Step <i>one</i><img src=x onerror=alert(1)></p>",
      },
    });
    expect(updated).toMatchObject({
      title: "Final",
      status: "in_progress",
      dueAt: null,
      descriptionHtml: "<h1>Plan</h1><p>Step <i>one</i></p>",
      descriptionPlain: "Plan\n\nStep one",
    });
    await expectStatus(400, `/tasks/${task.id}`, { method: "PATCH", key, json: { recordId } });
    await expectStatus(400, `/tasks/${task.id}`, { method: "PATCH", key, json: { status: "waiting" } });
  });

  it("managed by a source keep their title, description, due date and status, and cannot be deleted", async () => {
    const { bob } = await cast();
    const task = await createSourceManagedTask(drizzle(env.US_DB_1), {
      workspaceId: salesId,
      recordId,
      title: "Follow up on the demo",
      descriptionHtml: "<p>From the meeting</p>",
      source: { resourceType: "meeting", resourceId: "mtg_0123456789" },
    });
    expect(task.source).toEqual({ resourceType: "meeting", resourceId: "mtg_0123456789" });
    for (const json of [
      { title: "Mine now" },
      { status: "done" },
      { dueAt: 1 },
      { descriptionHtml: "<p>x</p>" },
      { descriptionPlain: "x" },
    ]) {
      const error = await expectStatus<ErrorBody>(409, `/tasks/${task.id}`, { method: "PATCH", key, json });
      expect(error.error.code).toBe("source_managed_task");
    }
    const reassigned = await expectStatus<{ task: Task }>(200, `/tasks/${task.id}`, {
      method: "PATCH",
      key,
      json: { assigneeUserIds: [bob.id] },
    });
    expect(reassigned.task.assigneeUserIds).toEqual([bob.id]);
    expect((await expectStatus<ErrorBody>(409, `/tasks/${task.id}`, { method: "DELETE", key })).error.code).toBe(
      "source_managed_task",
    );
    expect(await outboxCount("task.created", task.id)).toBe(1);
  });

  it("are written by members and read by viewers", async () => {
    const { carol } = await cast();
    const refused = await expectStatus<ErrorBody>(403, `/records/${recordId}/tasks`, {
      method: "POST",
      key: carol.apiKey,
      json: { title: "x" },
    });
    expect(refused.error.code).toBe("forbidden");
    await expectStatus(200, `/records/${recordId}/tasks`, { key: carol.apiKey });
  });
});

describe("notes", () => {
  it("are created, read, listed, updated and deleted softly, with sanitized HTML and events", async () => {
    const record = await newRecord();
    const { note } = await expectStatus<{ note: Note }>(201, `/records/${record}/notes`, {
      method: "POST",
      key,
      json: {
        title: "Call summary",
        contentHtml: '<p>Wants a <em>demo</em><script>x()</script></p><a href="JaVaScRiPt:alert(1)">bad</a>',
      },
    });
    expect(note).toMatchObject({
      recordId: record,
      title: "Call summary",
      contentHtml: "<p>Wants a <em>demo</em></p><a>bad</a>",
      contentPlain: "Wants a demo\n\nbad",
    });
    expect(note).not.toHaveProperty("meetingId");
    expect((await expectStatus<{ note: Note }>(200, `/notes/${note.id}`, { key })).note).toEqual(note);
    const second = (
      await expectStatus<{ note: Note }>(201, `/records/${record}/notes`, {
        method: "POST",
        key,
        json: { title: "Second", contentPlain: "typed" },
      })
    ).note;
    expect(second).toMatchObject({ contentHtml: "", contentPlain: "typed" });
    const updated = await expectStatus<{ note: Note }>(200, `/notes/${note.id}`, {
      method: "PATCH",
      key,
      json: { contentHtml: "<p>Demo booked</p>" },
    });
    expect(updated.note).toMatchObject({ title: "Call summary", contentPlain: "Demo booked" });
    await expectStatus(200, `/notes/${note.id}`, { method: "DELETE", key });
    const listed = await expectStatus<Page<Note>>(200, `/records/${record}/notes`, { key });
    expect(listed.data.map((item) => item.id)).toEqual([second.id]);
    await expectStatus(404, `/notes/${note.id}`, { key });
    for (const type of ["note.created", "note.updated", "note.deleted"]) expect(await outboxCount(type, note.id)).toBe(1);
    await expectStatus(400, `/records/${record}/notes`, { method: "POST", key, json: { contentHtml: "<p>no title</p>" } });
  });
});

describe("stored HTML", () => {
  // Both were stored as live script by the HTMLRewriter sanitizer, which read `<xmp>` and
  // `<noembed>` as text and then unwrapped them (issue 11).
  const xmp = "<b><xmp></b><script>alert(1)</script></xmp>";
  const noembed = "<p>Hi</p><noembed><img src=x onerror=alert(1)></noembed>";

  it("of tasks turns the <xmp> and <noembed> tricks into harmless markup, on create and update", async () => {
    const { task } = await createTask({ title: "Raw text", descriptionHtml: xmp });
    expect(task).toMatchObject({ descriptionHtml: "<b></b>", descriptionPlain: "" });
    const updated = await expectStatus<{ task: Task }>(200, `/tasks/${task.id}`, {
      method: "PATCH",
      key,
      json: { descriptionHtml: noembed },
    });
    expect(updated.task).toMatchObject({ descriptionHtml: "<p>Hi</p>", descriptionPlain: "Hi" });
    expect((await expectStatus<{ task: Task }>(200, `/tasks/${task.id}`, { key })).task.descriptionHtml).toBe("<p>Hi</p>");
  });

  it("of notes turns the <xmp> and <noembed> tricks into harmless markup, on create and update", async () => {
    const record = await newRecord();
    const { note } = await expectStatus<{ note: Note }>(201, `/records/${record}/notes`, {
      method: "POST",
      key,
      json: { title: "Raw text", contentHtml: noembed },
    });
    expect(note).toMatchObject({ contentHtml: "<p>Hi</p>", contentPlain: "Hi" });
    const updated = await expectStatus<{ note: Note }>(200, `/notes/${note.id}`, {
      method: "PATCH",
      key,
      json: { contentHtml: `<p>Call</p>${xmp}` },
    });
    expect(updated.note).toMatchObject({ contentHtml: "<p>Call</p><b></b>", contentPlain: "Call" });
    expect((await expectStatus<{ note: Note }>(200, `/notes/${note.id}`, { key })).note.contentHtml).toBe("<p>Call</p><b></b>");
  });

  it("nested thousands of levels deep is refused with 400, not a stack overflow", async () => {
    const error = await createTask({ title: "Deep", descriptionHtml: "<div>".repeat(5_000) }, recordId, 400);
    expect(error.error).toMatchObject({
      code: "invalid_request",
      message: expect.stringContaining("nested more than 512 levels"),
    });
    const record = await newRecord();
    const json = { title: "Deep", contentHtml: "<b>".repeat(600) };
    const noteError = await expectStatus<ErrorBody>(400, `/records/${record}/notes`, { method: "POST", key, json });
    expect(noteError.error.code).toBe("invalid_request");
  });

  it("that the parser would multiply (formatting left open across paragraphs) is refused with 400", async () => {
    // 30 KB that parses into ~170 000 elements: each of the 4 000 paragraphs re-creates the 42 open tags.
    const tags = ["a", "b", "big", "code", "em", "font", "i", "nobr", "s", "small", "strike", "strong", "tt", "u"];
    const descriptionHtml = `<p>${tags.map((name) => `<${name}>`.repeat(3)).join("")}</p>${"<p>y</p>".repeat(4_000)}`;
    const error = await createTask({ title: "Growing", descriptionHtml }, recordId, 400);
    expect(error.error).toMatchObject({ code: "invalid_request", message: expect.stringContaining("more than 50000 elements") });
  });
});
