/**
 * A console password in the format of workers/gateway/src/identity/passwords.ts (PBKDF2-SHA-256,
 * 100 000 iterations, `pbkdf2-sha256$<iterations>$<salt>$<hash>`). That module cannot be imported
 * here: it uses the Workers-only `crypto.subtle.timingSafeEqual`, which Node's types lack.
 */
export async function passwordHash(secret: string): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const material = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), "PBKDF2", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations: 100_000 }, material, 256);
  const base64Url = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");
  return `pbkdf2-sha256$100000$${base64Url(salt)}$${base64Url(new Uint8Array(bits))}`;
}

/** Gives a demo user a console password the test knows (the seed's are random). */
export async function setConsolePassword(
  stack: { mf: { getD1Database(binding: string, worker: string): Promise<D1Like> } },
  email: string,
  password: string,
): Promise<void> {
  const control = await stack.mf.getD1Database("CONTROL_DB", "crm-gateway");
  await control
    .prepare("UPDATE users SET password_hash = ? WHERE email = ?")
    .bind(await passwordHash(password), email)
    .run();
}

interface D1Like {
  prepare(query: string): { bind(...values: unknown[]): { run(): Promise<unknown> } };
}
