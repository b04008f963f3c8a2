import { clientAddressKey } from "@crm/rate-limiter";
import type { GatewayEnv } from "../env";
import { secretHash } from "../identity/identity-secret";

/**
 * Failed sign-ins, counted in the `RATE_LIMITER` Durable Objects under keys of their own: per
 * client (an IPv4 address or IPv6 /64) and per account (the e-mail's hash, whether or not it exists,
 * so a locked answer tells nothing about which e-mails have accounts). Every attempt takes a slot of
 * both windows before its password is checked, and gives them back when the password was right: so
 * only failures stay counted, and parallel attempts cannot pass a full window (DESIGN.md section 3).
 */
const windowMs = 15 * 60 * 1000;
export const signInLimits = { perClient: 20, perAccount: 5, windowMs } as const;

export type SignInAttempt =
  | { refused: true; retryAfterMs: number }
  | {
      refused: false;
      /** The password was right: the attempt's slots go back, it was no failure. */
      succeeded(): Promise<void>;
    };

function counters(env: GatewayEnv, ip: string, accountHash: string) {
  const counter = (key: string) => env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(key));
  return [
    { object: counter(`signin-ip:${clientAddressKey(ip)}`), limit: signInLimits.perClient },
    { object: counter(`signin-account:${accountHash}`), limit: signInLimits.perAccount },
  ];
}

const accountHash = (email: string) => secretHash(email.trim().toLowerCase());

/**
 * Reserves one failure in both windows for an attempt about to be checked. Refused when either is
 * full, and then the other's slot goes back at once: a refused attempt counts nowhere.
 */
export async function beginSignIn(env: GatewayEnv, ip: string, email: string): Promise<SignInAttempt> {
  const windows = counters(env, ip, await accountHash(email));
  const decisions = await Promise.all(windows.map(({ object, limit }) => object.take(limit, windowMs)));
  const giveBack = () =>
    Promise.all(
      decisions.map((decision, index) => (decision.token ? windows[index]?.object.giveBack(decision.token) : false)),
    ).then(() => undefined);
  const refused = decisions.filter((decision) => !decision.allowed);
  if (refused.length === 0) return { refused: false, succeeded: giveBack };
  await giveBack();
  return { refused: true, retryAfterMs: Math.max(...refused.map((decision) => decision.retryAfterMs)) };
}
