import { apiVersion, webhookHeaders } from "@crm/contracts";
import type { regional } from "@crm/db";
import type { DeliveryMessage } from "./messages";
import { checkWebhookUrl } from "./url-safety";

type WebhookRow = typeof regional.webhooks.$inferSelect;

/** How long a receiver may take to answer (DESIGN.md section 10); tests shorten it (`WEBHOOK_TIMEOUT_MS`). */
export const defaultTimeoutMs = 15_000;

/** Names the sender to a receiver's logs and firewall rules, with the API version whose events it delivers. */
const webhookUserAgent = `CRM-Webhooks/${apiVersion}`;

/** What one POST to a receiver gave. `status` null: no response (timeout, refused, refused URL). */
export interface AttemptResult {
  status: number | null;
  error: string | null;
  /** From `Retry-After` on 429, 502, 503 and 504, in seconds. */
  retryAfterSeconds: number | null;
  durationMs: number;
}

const honoursRetryAfter = new Set([429, 502, 503, 504]);

/** `Retry-After` in seconds, from delta-seconds or an HTTP date; null when absent or unreadable. */
function retryAfterSeconds(response: Response, now: number): number | null {
  const header = response.headers.get("retry-after");
  if (!header) return null;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - now) / 1000));
}

/** A failure the endpoint is to blame for, which counts towards opening its circuit breaker. */
export const isEndpointFailure = (result: AttemptResult) =>
  result.status === null || result.status >= 500 || result.status === 429;

/**
 * Signs the delivery with the subscription's secrets (both during a rotation) and POSTs it: no
 * redirects followed, the URL checked again (SSRF rules), the answer within `timeoutMs`.
 */
export async function attemptDelivery(
  webhook: WebhookRow,
  message: DeliveryMessage,
  timeoutMs: number,
  allowLoopback: boolean,
  now: number,
): Promise<AttemptResult> {
  const started = Date.now();
  const verdict = checkWebhookUrl(webhook.url, allowLoopback);
  if (!verdict.ok) return { status: null, error: verdict.reason, retryAfterSeconds: null, durationMs: 0 };
  const secrets = [
    webhook.secret,
    ...(webhook.previousSecret && (webhook.previousSecretExpiresAt ?? 0) > now ? [webhook.previousSecret] : []),
  ];
  const headers = await webhookHeaders(secrets, message.deliveryId, Math.floor(now / 1000), message.payload);
  // A timer cleared as soon as the receiver answered: `AbortSignal.timeout` held one of the isolate's
  // timers (10 000 at most) for the whole timeout after every answer, so a lane sending more than
  // 10 000 per timeout (a replay) ran the isolate out of timers, and every timer of every lane in it
  // was refused meanwhile.
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), timeoutMs);
  try {
    const answer = await fetch(verdict.url, {
      method: "POST",
      headers: { ...headers, "user-agent": webhookUserAgent },
      body: message.payload,
      redirect: "manual",
      signal: timeout.signal,
    });
    await answer.body?.cancel();
    const status = answer.status;
    return {
      status,
      error: status >= 300 && status < 400 ? "Redirects are not followed" : status >= 300 ? `Receiver answered ${status}` : null,
      retryAfterSeconds: honoursRetryAfter.has(status) ? retryAfterSeconds(answer, now) : null,
      durationMs: Date.now() - started,
    };
  } catch (failure) {
    const error = timeout.signal.aborted ? `Timed out after ${timeoutMs / 1000} s` : `Request failed: ${String(failure)}`;
    return { status: null, error, retryAfterSeconds: null, durationMs: Date.now() - started };
  } finally {
    clearTimeout(timer);
  }
}
