/**
 * Standard Webhooks signing (DESIGN.md section 10): `webhook-signature: v1,<base64 HMAC-SHA256 of
 * "id.timestamp.body">`, the key being the text after `whsec_` base64-decoded, exactly as the
 * reference `standardwebhooks` library reads it. Several secrets (during a rotation) give several
 * space-separated signatures, any of which verifies.
 */

const encoder = new TextEncoder();

export function newWebhookSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return `whsec_${[...bytes].map((byte) => byte.toString(16).padStart(2, "0")).join("")}`;
}

function keyBytes(secret: string): Uint8Array<ArrayBuffer> {
  const binary = atob(secret.replace(/^whsec_/, ""));
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

async function sign(secret: string, content: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", keyBytes(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const signature = new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(content)));
  let binary = "";
  for (const byte of signature) binary += String.fromCharCode(byte);
  return `v1,${btoa(binary)}`;
}

export async function webhookHeaders(
  secrets: string[],
  id: string,
  timestampSeconds: number,
  body: string,
): Promise<Record<string, string>> {
  const content = `${id}.${timestampSeconds}.${body}`;
  const signatures = await Promise.all(secrets.map((secret) => sign(secret, content)));
  return {
    "content-type": "application/json",
    "webhook-id": id,
    "webhook-timestamp": String(timestampSeconds),
    "webhook-signature": signatures.join(" "),
  };
}
