import { describe, expect, it } from "vitest";
import { hashPassword, passwordIterations, passwordMatches } from "./passwords";

describe("console passwords", () => {
  it("are stored as pbkdf2-sha256$100000$<16-byte salt>$<32-byte hash>, salted per hash", async () => {
    const first = await hashPassword("correct horse battery staple");
    const second = await hashPassword("correct horse battery staple");
    expect(first).toMatch(/^pbkdf2-sha256\$100000\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(passwordIterations).toBe(100_000);
    expect(first).not.toBe(second);
    expect(first).not.toContain("correct horse");
  });

  it("verify the right password and refuse a wrong one", async () => {
    const stored = await hashPassword("s3cret-Passw0rd");
    expect(await passwordMatches("s3cret-Passw0rd", stored)).toBe(true);
    expect(await passwordMatches("s3cret-passw0rd", stored)).toBe(false);
    expect(await passwordMatches("", stored)).toBe(false);
  });

  it("refuse every password for an unknown e-mail (no hash) and for an unreadable hash", async () => {
    expect(await passwordMatches("", null)).toBe(false);
    expect(await passwordMatches("anything", null)).toBe(false);
    expect(await passwordMatches("anything", "plain:anything")).toBe(false);
    const [scheme, , salt, hash] = (await hashPassword("anything")).split("$");
    // More iterations than the runtime allows is refused rather than attempted.
    expect(await passwordMatches("anything", `${scheme}$1000000$${salt}$${hash}`)).toBe(false);
  });
});
