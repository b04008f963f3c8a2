import { regional } from "@crm/db";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { countRows, createKey } from "./fixtures";
import { mailWorkspace, sentMime } from "./mail";
import { clients, type McpClient, resultText, structured, toolError } from "./mcp";
import { call } from "./stack";

/**
 * `sendMode` of the sending tools (reference rule 12): omitted → a preview and nothing written,
 * `draft` → the caller's draft, `send` → real mail; any other value → an error.
 */

interface Sent {
  conversation: { id: string };
  message: { id: string; text: string };
}

const { composeDrafts, conversations, messages, drafts } = regional;

async function setup(connect: (typeof clients)[keyof typeof clients]) {
  const workspace = await mailWorkspace();
  const client = await connect(workspace.key);
  return { workspace, client };
}

/** A conversation started through the compose tool, sent. */
async function composed(client: McpClient, workspace: Awaited<ReturnType<typeof mailWorkspace>>, to = "ada@customer.example") {
  const result = await client.callTool({
    name: "inbox_conversations_compose",
    arguments: {
      workspaceId: workspace.workspaceId,
      mailbox: workspace.mailbox,
      to: [to],
      subject: "Renewal",
      text: "Hello",
      sendMode: "send",
    },
  });
  return structured<Sent>(result);
}

const messagesIn = (conversationId: string) => countRows("us", messages, eq(messages.conversationId, conversationId));
const draftsOf = (conversationId: string) => countRows("us", drafts, eq(drafts.conversationId, conversationId));

for (const [name, connect] of Object.entries(clients)) {
  describe(`inbox_messages_send, ${name}`, () => {
    it("without sendMode: a preview, nothing sent, nothing saved", async () => {
      const { workspace, client } = await setup(connect);
      const { conversation } = await composed(client, workspace);
      const result = await client.callTool({
        name: "inbox_messages_send",
        arguments: { conversationId: conversation.id, text: "Shall we sign?", idempotencyKey: "preview-1" },
      });
      expect(structured(result)).toEqual({
        sent: false,
        confirmationRequired: true,
        preview: { conversationId: conversation.id, text: "Shall we sign?" },
      });
      expect(await messagesIn(conversation.id)).toBe(1);
      expect(await draftsOf(conversation.id)).toBe(0);
      await client.close();
    });

    it("sendMode draft: saves the caller's draft through the draft route, sends nothing", async () => {
      const { workspace, client } = await setup(connect);
      const { conversation } = await composed(client, workspace);
      const result = await client.callTool({
        name: "inbox_messages_send",
        arguments: { conversationId: conversation.id, text: "Draft reply", cc: ["bea@customer.example"], sendMode: "draft" },
      });
      expect(structured<{ draft: { text: string } }>(result).draft).toMatchObject({
        text: "Draft reply",
        cc: ["bea@customer.example"],
      });
      const rest = (await (await call(`/inbox/conversations/${conversation.id}/draft`, { key: workspace.key })).json()) as {
        draft: { text: string };
      };
      expect(rest.draft.text).toBe("Draft reply");
      expect(await messagesIn(conversation.id)).toBe(1);
      // A draft keeps no subject: refused rather than dropped.
      const withSubject = await client.callTool({
        name: "inbox_messages_send",
        arguments: { conversationId: conversation.id, text: "x", subject: "New subject", sendMode: "draft" },
      });
      expect(toolError(withSubject).error).toMatchObject({ code: "invalid_request", details: [{ path: "subject" }] });
      await client.close();
    });

    it("sendMode send: sends the reply as real mail", async () => {
      const { workspace, client } = await setup(connect);
      const { conversation } = await composed(client, workspace);
      const result = await client.callTool({
        name: "inbox_messages_send",
        arguments: { conversationId: conversation.id, text: "Signed copy attached in spirit.", sendMode: "send" },
      });
      const sent = structured<Sent>(result);
      expect(sent.conversation.id).toBe(conversation.id);
      expect(await messagesIn(conversation.id)).toBe(2);
      const mime = await sentMime(sent.message.id, "ada@customer.example");
      expect(mime.text?.trim()).toBe("Signed copy attached in spirit.");
      await client.close();
    });

    it("any other sendMode: an error, nothing written", async () => {
      const { workspace, client } = await setup(connect);
      const { conversation } = await composed(client, workspace);
      const result = await client.callTool({
        name: "inbox_messages_send",
        arguments: { conversationId: conversation.id, text: "Now?", sendMode: "later" },
      });
      expect(result.isError).toBe(true);
      expect(resultText(result)).toContain("sendMode");
      expect(await messagesIn(conversation.id)).toBe(1);
      expect(await draftsOf(conversation.id)).toBe(0);
      await client.close();
    });
  });
}

for (const [name, connect] of Object.entries(clients)) {
  describe(`inbox_conversations_compose, ${name}`, () => {
    it("previews without sendMode, saves a draft of a new conversation with draft, sends with send", async () => {
      const { workspace, client } = await setup(connect);
      const conversationsOfWorkspace = () => countRows("us", conversations, eq(conversations.workspaceId, workspace.workspaceId));
      const message = {
        workspaceId: workspace.workspaceId,
        mailbox: workspace.mailbox,
        to: ["ada@customer.example"],
        subject: "Hi",
        html: "<p>Hello<script>alert(1)</script></p>",
      };
      const preview = await client.callTool({ name: "inbox_conversations_compose", arguments: message });
      expect(structured(preview)).toEqual({ sent: false, confirmationRequired: true, preview: message });
      const saved = await client.callTool({
        name: "inbox_conversations_compose",
        arguments: { ...message, sendMode: "draft", idempotencyKey: `draft-${crypto.randomUUID()}` },
      });
      const { draft } = structured<{ draft: { id: string; subject: string; html: string } }>(saved);
      expect(draft).toMatchObject({ subject: "Hi", html: "<p>Hello</p>", to: ["ada@customer.example"] });
      expect(await conversationsOfWorkspace()).toBe(0);
      // The draft is the REST resource, and its send tool starts the conversation.
      const rest = await call(`/inbox/drafts?workspaceId=${workspace.workspaceId}`, { key: workspace.key });
      expect(((await rest.json()) as { data: { id: string }[] }).data.map((item) => item.id)).toEqual([draft.id]);
      // Sending the saved draft follows sendMode too: omitted, a preview of the draft; draft, the draft kept; nothing leaves.
      const draftPreview = await client.callTool({ name: "inbox_compose_drafts_send", arguments: { draftId: draft.id } });
      expect(structured(draftPreview)).toEqual({ sent: false, confirmationRequired: true, preview: { draft } });
      const kept = await client.callTool({
        name: "inbox_compose_drafts_send",
        arguments: { draftId: draft.id, sendMode: "draft" },
      });
      expect(structured(kept)).toEqual({ draft });
      expect(await conversationsOfWorkspace()).toBe(0);
      expect(await countRows("us", composeDrafts, eq(composeDrafts.id, draft.id))).toBe(1);
      const fromDraft = structured<Sent>(
        await client.callTool({ name: "inbox_compose_drafts_send", arguments: { draftId: draft.id, sendMode: "send" } }),
      );
      expect(fromDraft.message.text).toBe("Hello");
      expect(await countRows("us", composeDrafts, eq(composeDrafts.id, draft.id))).toBe(0);
      const sent = structured<Sent>(
        await client.callTool({
          name: "inbox_conversations_compose",
          arguments: { ...message, text: "Hello", sendMode: "send" },
        }),
      );
      expect(sent.message.text).toBe("Hello");
      expect(await conversationsOfWorkspace()).toBe(2);
      await client.close();
    });
  });
}

describe("inbox_conversations_compose", () => {
  it("previews only what the credential may send: a preview checks the scope", async () => {
    const workspace = await mailWorkspace();
    const { key } = await createKey({
      organizationId: workspace.organizationId,
      ownerId: workspace.userId,
      scopes: ["inbox:read"],
    });
    const client = await clients["1.x client at 2025-11-25"](key);
    const preview = await client.callTool({
      name: "inbox_conversations_compose",
      arguments: {
        workspaceId: workspace.workspaceId,
        mailbox: workspace.mailbox,
        to: ["ada@customer.example"],
        subject: "Hi",
        text: "Hello",
      },
    });
    expect(toolError(preview).error).toMatchObject({ code: "insufficient_scope", details: { requiredScope: "inbox:send" } });
    await client.close();
  });
});
