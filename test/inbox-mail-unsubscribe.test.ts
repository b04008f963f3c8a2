import { signUnsubscribeLink, unsubscribeLinkLifetimeMs } from "@crm/contracts";
import { regional } from "@crm/db";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { countRows } from "./fixtures";
import { mailWorkspace, sentMime, unsubscribeToken } from "./mail";
import { call } from "./stack";

const { messages, unsubscribedAddresses } = regional;

type Workspace = Awaited<ReturnType<typeof mailWorkspace>>;

function compose(workspace: Workspace, to: string) {
  return call("/inbox/conversations", {
    method: "POST",
    key: workspace.key,
    json: { workspaceId: workspace.workspaceId, mailbox: workspace.mailbox, to: [to], subject: "News", text: "Hello" },
  });
}

/** The unsubscribe token a recipient got in a message the workspace sent them. */
async function tokenSentTo(workspace: Workspace, address: string): Promise<string> {
  const response = await compose(workspace, address);
  expect(response.status).toBe(201);
  const { message } = (await response.json()) as { message: { id: string } };
  return unsubscribeToken(await sentMime(message.id, address, workspace.region));
}

const isUnsubscribed = (workspace: Workspace, address: string) =>
  countRows(
    workspace.region,
    unsubscribedAddresses,
    and(eq(unsubscribedAddresses.organizationId, workspace.organizationId), eq(unsubscribedAddresses.address, address)),
  );

const oneClick = () => new URLSearchParams({ "List-Unsubscribe": "One-Click" });

describe("unsubscribe: GET and POST /email/unsubscribe", () => {
  it("shows a confirmation page that changes nothing, unsubscribes on the one-click POST, repeats harmlessly, then refuses sending with 409", async () => {
    const workspace = await mailWorkspace();
    const token = await tokenSentTo(workspace, "ada@customer.example");
    const link = `/email/unsubscribe?token=${encodeURIComponent(token)}`;

    const page = await call(link);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await page.text();
    expect(html).toContain("ada@customer.example");
    expect(html).toContain('<input type="hidden" name="List-Unsubscribe" value="One-Click" />');
    expect(await isUnsubscribed(workspace, "ada@customer.example")).toBe(0);

    const first = await call(link, { method: "POST", body: oneClick() });
    expect(first.status).toBe(200);
    expect(first.headers.get("location")).toBeNull();
    expect(await first.text()).toContain("ada@customer.example");
    // Neither page can be framed (a clickjacked Unsubscribe), nor leak its token as a Referer.
    for (const shown of [page, first]) {
      expect(shown.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
      expect(shown.headers.get("x-frame-options")).toBe("DENY");
      expect(shown.headers.get("referrer-policy")).toBe("no-referrer");
    }
    expect(await isUnsubscribed(workspace, "ada@customer.example")).toBe(1);

    // Again, as the page's form would send it (multipart): the same answer, nothing new.
    const form = new FormData();
    form.set("List-Unsubscribe", "One-Click");
    expect((await call(link, { method: "POST", body: form })).status).toBe(200);
    expect(await isUnsubscribed(workspace, "ada@customer.example")).toBe(1);

    const sentBefore = await countRows("us", messages, eq(messages.workspaceId, workspace.workspaceId));
    const refused = await compose(workspace, "ADA@customer.example");
    expect(refused.status).toBe(409);
    const body = (await refused.json()) as { error: { code: string; details: { addresses: string[] } } };
    expect(body.error).toMatchObject({ code: "recipient_unsubscribed", details: { addresses: ["ada@customer.example"] } });
    expect(await countRows("us", messages, eq(messages.workspaceId, workspace.workspaceId))).toBe(sentBefore);
  });

  it("unsubscribes from one organization only, in its own region", async () => {
    const eu = await mailWorkspace("eu");
    const us = await mailWorkspace();
    const token = await tokenSentTo(eu, "bea@customer.example");
    expect(
      (await call(`/email/unsubscribe?token=${encodeURIComponent(token)}`, { method: "POST", body: oneClick() })).status,
    ).toBe(200);
    expect(await isUnsubscribed(eu, "bea@customer.example")).toBe(1);
    expect(await countRows("us", unsubscribedAddresses, eq(unsubscribedAddresses.address, "bea@customer.example"))).toBe(0);
    expect((await compose(eu, "bea@customer.example")).status).toBe(409);
    expect((await compose(us, "bea@customer.example")).status).toBe(201);
  });

  it("refuses forged, tampered, expired and missing tokens and a POST without the one-click body, changing nothing", async () => {
    const workspace = await mailWorkspace();
    const link = { organizationId: workspace.organizationId, address: "cleo@customer.example", region: "us" as const };
    const valid = await signUnsubscribeLink(link, "test-context-secret-us");
    const [payload, signature] = valid.split(".");
    const bad = [
      await signUnsubscribeLink(link, "not-the-region-secret"),
      // Signed with the eu secret but naming the us region.
      await signUnsubscribeLink(link, "test-context-secret-eu"),
      `${payload}x.${signature}`,
      await signUnsubscribeLink(link, "test-context-secret-us", Date.now() - unsubscribeLinkLifetimeMs - 1_000),
      "garbage",
    ];
    for (const token of bad) {
      for (const method of ["GET", "POST"]) {
        const response = await call(`/email/unsubscribe?token=${encodeURIComponent(token)}`, {
          method,
          ...(method === "POST" ? { body: oneClick() } : {}),
        });
        expect(response.status, `${method} ${token}`).toBe(400);
      }
    }
    expect((await call("/email/unsubscribe")).status).toBe(400);
    const url = `/email/unsubscribe?token=${encodeURIComponent(valid)}`;
    const refusals: [BodyInit | undefined, number][] = [
      [undefined, 400],
      [new URLSearchParams({ "List-Unsubscribe": "Yes" }), 400],
      // A string is sent as text/plain: not a form.
      [JSON.stringify({ "List-Unsubscribe": "One-Click" }), 415],
    ];
    for (const [body, status] of refusals) {
      expect((await call(url, { method: "POST", ...(body ? { body } : {}) })).status).toBe(status);
    }
    expect(await isUnsubscribed(workspace, "cleo@customer.example")).toBe(0);
    // The valid token works, a little before its 90 days are up.
    const late = await signUnsubscribeLink(link, "test-context-secret-us", Date.now() - unsubscribeLinkLifetimeMs + 60_000);
    expect(
      (await call(`/email/unsubscribe?token=${encodeURIComponent(late)}`, { method: "POST", body: oneClick() })).status,
    ).toBe(200);
    expect(await isUnsubscribed(workspace, "cleo@customer.example")).toBe(1);
  });
});
