const alphabet = "0123456789abcdefghjkmnpqrstvwxyz";

/**
 * Prefixed, time-sortable identifiers (`ws_…`): 10 characters of millisecond time in Crockford
 * base32, then 16 random ones (80 bits), so ids of one tenant reveal nothing about another's.
 */
export function newId(prefix: string, now = Date.now()): string {
  let time = "";
  let rest = now;
  for (let i = 0; i < 10; i++) {
    time = alphabet[rest % 32] + time;
    rest = Math.floor(rest / 32);
  }
  const random = crypto.getRandomValues(new Uint8Array(16));
  let tail = "";
  for (const byte of random) tail += alphabet[byte % 32];
  return `${prefix}_${time}${tail}`;
}
