import { clientAddressKey } from "@crm/rate-limiter";
import type { GatewayEnv } from "../env";
import { secretHash } from "../identity/identity-secret";

/**
 * Failed sign-ins, counted in the existing `RATE_LIMITER` Durable Objects under keys of their own:
 * per client (an IPv4 address or IPv6 /64) and per account (the e-mail's hash, whether or not it
 * exists, so a locked answer tells nothing about which e-mails have accounts). Only failures count;
 * once either window is full, sign-in is refused before any password is checked.
 */
const windowMs = 15 * 60 * 1000;
export const signInLimits = { perClient: 20, perAccount: 5, windowMs } as const;

export interface SignInRefusal {
  retryAfterMs: number;
}

function counters(env: GatewayEnv, ip: string, accountHash: string) {
  const counter = (key: string) => env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(key));
  return [
    { object: counter(`signin-ip:${clientAddressKey(ip)}`), limit: signInLimits.perClient },
    { object: counter(`signin-account:${accountHash}`), limit: signInLimits.perAccount },
  ];
}

const accountHash = (email: string) => secretHash(email.trim().toLowerCase());

/** Null while both windows have room; otherwise how long until the fuller one admits again. */
export async function signInRefusal(env: GatewayEnv, ip: string, email: string): Promise<SignInRefusal | null> {
  const decisions = await Promise.all(
    counters(env, ip, await accountHash(email)).map(({ object, limit }) => object.peek(limit, windowMs)),
  );
  const refused = decisions.filter((decision) => !decision.allowed);
  return refused.length === 0 ? null : { retryAfterMs: Math.max(...refused.map((decision) => decision.retryAfterMs)) };
}

/** Counts one failed sign-in in both windows. */
export async function countFailedSignIn(env: GatewayEnv, ip: string, email: string): Promise<void> {
  await Promise.all(counters(env, ip, await accountHash(email)).map(({ object, limit }) => object.take(limit, windowMs)));
}
