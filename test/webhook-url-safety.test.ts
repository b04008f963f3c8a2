import { beforeAll, describe, expect, it } from "vitest";
import { checkWebhookUrl } from "../workers/api/src/domain/webhooks/url-safety";
import { type ErrorBody, expectStatus } from "./crm";
import { cast } from "./stack";

/**
 * Webhook target checks (issue 11, SSRF): the host is normalized (lowercase, IDNA, percent-escapes,
 * trailing dots) before every check, and special-use names are refused. The tests' regional
 * Workers allow loopback receivers (WEBHOOKS_ALLOW_LOOPBACK), so names that mean loopback itself
 * are checked through the function, which is also what runs before each delivery.
 */

const internalName = "The host is an internal name";
const notPublic = "The host is not a public address (private, loopback, link-local or metadata)";

// Refused whatever the loopback setting, at save and at delivery.
const refused: [url: string, reason: string][] = [
  ["https://metadata.google.internal./computeMetadata/v1/", internalName],
  ["https://metadata.google.internal../x", internalName],
  ["https://METADATA.Google.Internal./x", internalName],
  ["https://metadata.google.internal\u3002/x", internalName],
  ["https://metadata%2egoogle%2einternal%2e/x", internalName],
  ["https://instance-data./latest/meta-data", internalName],
  ["https://instance-data.ec2.internal/x", internalName],
  ["https://app.localhost./x", internalName],
  ["https://app.localhost/x", internalName],
  ["https://printer.local./x", internalName],
  ["https://nas.localdomain/x", internalName],
  ["https://nas.localdomain./x", internalName],
  ["https://router.home.arpa/x", internalName],
  ["https://router.home.arpa./x", internalName],
  ["https://1.0.0.127.in-addr.arpa/x", internalName],
  ["https://wiki.intranet/x", internalName],
  ["https://nas.lan./x", internalName],
  ["https://git.corp/x", internalName],
  ["https://hooks.test/x", internalName],
  ["https://kubernetes.default.svc.cluster.local/x", internalName],
  ["https://intranet./x", internalName],
  ["https://169.254.169.254./latest/meta-data", notPublic],
  ["https://0251.0376.0251.0376/latest/meta-data", notPublic],
  ["https://2852039166/latest/meta-data", notPublic],
  ["https://[::ffff:a9fe:a9fe]/latest/meta-data", notPublic],
  ["https://[::a9fe:a9fe]/x", notPublic],
  ["https://[64:ff9b::a9fe:a9fe]/x", notPublic],
  ["https://[2002:a9fe:a9fe::1]/x", notPublic],
  ["https://[2002:c0a8:101::1]/x", notPublic],
  ["https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/x", notPublic],
  ["https://[fd00:ec2::254]/latest/meta-data", notPublic],
  ["https://[fec0::1]/x", notPublic],
  ["https://[ff02::1]/x", notPublic],
  ["https://[100::1]/x", notPublic],
];

// Loopback in all its spellings: refused unless the local-development setting is on.
const loopback = [
  "https://localhost./x",
  "https://localhost../x",
  "https://LOCALHOST./x",
  "https://%6c%6fcalhost./x",
  "https://\uff4c\uff4f\uff43\uff41\uff4c\uff48\uff4f\uff53\uff54/x",
  "https://localhost\u3002/x",
  "https://127.0.0.1./x",
  "https://[0:0:0:0:0:0:0:1]/x",
];

let key: string;
let salesId: string;

beforeAll(async () => {
  const { alice, sales } = await cast();
  key = alice.apiKey;
  salesId = sales.id;
});

describe("webhook URLs", () => {
  it("are refused at save with 400 and the reason, for special-use names and addresses in any spelling", async () => {
    for (const [url, reason] of refused) {
      const error = await expectStatus<ErrorBody>(400, "/webhooks", {
        method: "POST",
        key,
        json: { workspaceId: salesId, url, eventTypes: ["record.created"] },
      });
      expect(error.error.code, url).toBe("invalid_request");
      expect(error.error.details, url).toEqual([{ path: "body.url", message: reason }]);
    }
  });

  it("are refused when changed to an internal one", async () => {
    const { webhook } = await expectStatus<{ webhook: { id: string } }>(201, "/webhooks", {
      method: "POST",
      key,
      json: { workspaceId: salesId, url: "https://hooks.example.com/crm", eventTypes: ["record.created"] },
    });
    const error = await expectStatus<ErrorBody>(400, `/webhooks/${webhook.id}`, {
      method: "PATCH",
      key,
      json: { url: "https://metadata.google.internal./x" },
    });
    expect(error.error.details).toEqual([{ path: "body.url", message: internalName }]);
  });

  it("are refused before each delivery, whatever the stored URL, by the same check", () => {
    for (const [url, reason] of refused) {
      expect(checkWebhookUrl(url, false), url).toEqual({ ok: false, reason });
      expect(checkWebhookUrl(url, true), url).toEqual({ ok: false, reason });
    }
  });

  it("treat every spelling of loopback as loopback: refused, unless local development allows it", () => {
    for (const url of loopback) {
      expect(checkWebhookUrl(url, false).ok, url).toBe(false);
      expect(checkWebhookUrl(url, true).ok, url).toBe(true);
    }
    expect(checkWebhookUrl("http://localhost.:9999/x", true)).toEqual({ ok: true, url: "http://localhost.:9999/x" });
    expect(checkWebhookUrl("http://localhost.:9999/x", false)).toEqual({ ok: false, reason: "Only https URLs are allowed" });
  });

  it("accept public hosts, with a trailing dot, in Unicode, and public IP literals", () => {
    for (const [url, href] of [
      ["https://hooks.example.com/x", "https://hooks.example.com/x"],
      ["https://Hooks.Example.com./x", "https://hooks.example.com./x"],
      ["https://b\u00fccher.example/x", "https://xn--bcher-kva.example/x"],
      ["https://1.1.1.1/x", "https://1.1.1.1/x"],
      ["https://[2606:4700:4700::1111]/x", "https://[2606:4700:4700::1111]/x"],
      ["https://[2002:0808:0808::1]/x", "https://[2002:808:808::1]/x"],
      ["https://local.example.com/x", "https://local.example.com/x"],
    ])
      expect(checkWebhookUrl(url as string, false), url).toEqual({ ok: true, url: href });
  });
});
