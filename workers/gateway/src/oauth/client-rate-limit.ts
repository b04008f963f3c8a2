import { admit, clientWindow } from "@crm/rate-limiter";
import type { GatewayEnv } from "../env";
import { budgetsOf } from "../pipeline/admit";
import { OAuthError } from "./oauth-error";

/**
 * The token, revocation and registration endpoints take no bearer credential, so nothing but the
 * client's address limits them: 60 requests a minute per IPv4 address or IPv6 /64, on a counter of
 * their own (`oauth:anon:…`), apart from public reads and from failed API authentications. The
 * slot is taken before the client's secret is checked, so parallel guesses cannot pass a full
 * window (DESIGN.md section 4); like any anonymous traffic, they never spend the platform window.
 */
export async function admitOAuthClient(
  env: GatewayEnv,
  request: Request,
  ctx: { waitUntil(promise: Promise<unknown>): void },
): Promise<void> {
  const budgets = budgetsOf(env);
  const window = clientWindow("oauth:anon", request.headers.get("cf-connecting-ip") ?? "unknown", budgets);
  const admittance = await admit(env.RATE_LIMITER, [window], (delayMs, task) =>
    ctx.waitUntil(scheduler.wait(delayMs).then(task)),
  );
  if (!admittance.allowed) {
    const retryAfterSeconds = Math.ceil(admittance.refusing.retryAfterMs / 1000);
    throw new OAuthError("rate_limited", "Public API rate limit exceeded", { "retry-after": String(retryAfterSeconds) });
  }
}
