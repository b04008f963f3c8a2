import type { Draft } from "@crm/contracts";
import { newId, regional } from "@crm/db";
import { describe, expect, it } from "vitest";
import { storeMessage } from "../workers/api/src/domain/inbox/store-message";
import { type ErrorBody, expectStatus } from "./crm";
import { addInboxMember, addPerson, inboundMessage, inboxWorkspace } from "./inbox";

type Workspace = Awaited<ReturnType<typeof inboxWorkspace>>;

const draftPath = (conversationId: string) => `/inbox/conversations/${conversationId}/draft`;
const put = (conversationId: string, key: string, json: unknown, status = 200) =>
  expectStatus<{ draft: Draft } & ErrorBody>(status, draftPath(conversationId), { method: "PUT", key, json });
const get = (conversationId: string, key: string, status = 200) =>
  expectStatus<{ draft: Draft } & ErrorBody>(status, draftPath(conversationId), { key });

async function conversationIn(workspace: Workspace) {
  const stored = await storeMessage(workspace.db, inboundMessage(workspace.mailbox));
  return stored.conversationId;
}

describe("PUT/GET/DELETE /inbox/conversations/{conversationId}/draft", () => {
  it("keeps one draft per user and conversation, replaced by each PUT", async () => {
    const workspace = await inboxWorkspace();
    const conversationId = await conversationIn(workspace);
    const ann = await addInboxMember(workspace, "member", "all");
    await get(conversationId, workspace.key, 404);
    const first = await put(conversationId, workspace.key, { text: "Thanks!", to: ["casey@outside.example"] });
    expect(first.draft).toEqual({
      conversationId,
      text: "Thanks!",
      to: ["casey@outside.example"],
      cc: [],
      updatedAt: expect.any(Number),
    });
    const second = await put(conversationId, workspace.key, {
      text: "Thanks, Casey!",
      html: "<p>Thanks, <b>Casey</b>!</p>",
      to: ["casey@outside.example"],
      cc: ["team@outside.example"],
    });
    expect((await get(conversationId, workspace.key)).draft).toEqual(second.draft);
    expect(second.draft.html).toBe("<p>Thanks, <b>Casey</b>!</p>");
    // Another user's draft of the same conversation is their own.
    await get(conversationId, ann.key, 404);
    await put(conversationId, ann.key, { text: "I will take this one." });
    expect((await get(conversationId, ann.key)).draft.text).toBe("I will take this one.");
    expect((await get(conversationId, workspace.key)).draft.text).toBe("Thanks, Casey!");
    // A PUT without html clears the html of the former draft.
    expect((await put(conversationId, workspace.key, { text: "Plain now" })).draft).not.toHaveProperty("html");
    expect((await get(conversationId, workspace.key)).draft).not.toHaveProperty("html");
    const rows = await workspace.db.select().from(regional.drafts);
    expect(rows.filter((row) => row.conversationId === conversationId)).toHaveLength(2);
  });

  it("stores HTML sanitized, and refuses HTML in a conversation that is not e-mail", async () => {
    const workspace = await inboxWorkspace();
    const conversationId = await conversationIn(workspace);
    const saved = await put(conversationId, workspace.key, {
      text: "Hi",
      html: '<p onclick="steal()">Hi<script>alert(1)</script> <a href="javascript:alert(1)">there</a></p>',
    });
    expect(saved.draft.html).toBe("<p>Hi <a>there</a></p>");
    const chat = newId("conv");
    const now = Date.now();
    await workspace.db.insert(regional.conversations).values({
      id: chat,
      workspaceId: workspace.workspaceId,
      channel: "chat",
      subject: "Live chat",
      lastMessageAtMs: now,
      isClosed: false,
      createdAt: now,
      updatedAt: now,
    });
    const refused = await put(chat, workspace.key, { text: "Hi", html: "<p>Hi</p>" }, 400);
    expect(refused.error.details?.map((detail) => detail.path)).toEqual(["body.html"]);
    expect((await put(chat, workspace.key, { text: "Hi" })).draft.text).toBe("Hi");
  });

  it("refuses bad addresses (line breaks included), unknown properties and a missing text, naming the paths", async () => {
    const workspace = await inboxWorkspace();
    const conversationId = await conversationIn(workspace);
    for (const [json, path] of [
      [{ text: "Hi", to: ["not an address"] }, "body.to.0"],
      [{ text: "Hi", cc: ["ok@example.com", "evil@example.com\r\nBcc: all@example.com"] }, "body.cc.1"],
      [{ text: "Hi", bcc: ["a@example.com"] }, "body.bcc"],
      [{ to: ["ada@example.com"] }, "body.text"],
    ] as const) {
      const body = await put(conversationId, workspace.key, json, 400);
      expect(body.error.details?.map((detail) => detail.path)).toContain(path);
    }
    await get(conversationId, workspace.key, 404);
  });

  it("deletes the caller's draft only; a missing draft is 404", async () => {
    const workspace = await inboxWorkspace();
    const conversationId = await conversationIn(workspace);
    const ann = await addInboxMember(workspace, "member", "all");
    await put(conversationId, workspace.key, { text: "Mine" });
    await put(conversationId, ann.key, { text: "Ann's" });
    const deleted = await expectStatus<{ deletedId: string }>(200, draftPath(conversationId), {
      method: "DELETE",
      key: workspace.key,
    });
    expect(deleted.deletedId).toBe(conversationId);
    await get(conversationId, workspace.key, 404);
    await expectStatus(404, draftPath(conversationId), { method: "DELETE", key: workspace.key });
    expect((await get(conversationId, ann.key)).draft.text).toBe("Ann's");
  });

  it("applies the conversation's access: record-scoped members only where linked, viewers read only", async () => {
    const workspace = await inboxWorkspace();
    const unlinked = await conversationIn(workspace);
    await addPerson(workspace.key, workspace.workspaceId, "Casey", "customer@outside.example");
    const linked = await conversationIn(workspace);
    const [scoped, viewer] = await Promise.all([
      addInboxMember(workspace, "member", "record_reply"),
      addInboxMember(workspace, "viewer", "all"),
    ]);
    await put(unlinked, scoped.key, { text: "Hi" }, 404);
    await get(unlinked, scoped.key, 404);
    await expectStatus(404, draftPath(unlinked), { method: "DELETE", key: scoped.key });
    await put(linked, scoped.key, { text: "Hi" });
    expect((await get(linked, scoped.key)).draft.text).toBe("Hi");
    expect((await put(linked, viewer.key, { text: "Hi" }, 403)).error.code).toBe("forbidden");
    await get(linked, viewer.key, 404);
    const other = await inboxWorkspace();
    await put(linked, other.key, { text: "Hi" }, 404);
  });
});
