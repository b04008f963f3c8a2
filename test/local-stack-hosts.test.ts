import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { isLoopbackHost } from "../workers/gateway/src/local-stack-hosts";

/**
 * DNS rebinding against the local stack (DEV_TOOLS on, as in these tests): a page whose name was
 * rebound to 127.0.0.1 sends its own name as Host. Only loopback names are answered.
 */

const gateway = (exports as unknown as { default: Fetcher }).default;
const paths: [string, string][] = [
  ["POST", "/__dev/seed"],
  ["GET", "/api/v1/openapi.json"],
  ["GET", "/api/v1/workspaces"],
  ["GET", "/console/sign-in"],
  ["GET", "/.well-known/jwks.json"],
  ["POST", "/mcp"],
];

describe("the local stack's host names", () => {
  it("refuses a foreign Host on every route, the seed first, with 403 and no demo data", async () => {
    for (const host of [
      "rebound.attacker.example:8787",
      "127.0.0.1.attacker.example",
      "localhost.attacker.example",
      "10.0.0.1",
    ]) {
      for (const [method, path] of paths) {
        const response = await gateway.fetch(new Request(`http://${host}${path}`, { method }));
        expect(response.status, `${method} ${host}${path}`).toBe(403);
        const body = await response.text();
        // The MCP endpoint answers in JSON-RPC (its own check, test/mcp-bad-input.test.ts); every other route in the envelope.
        if (path !== "/mcp") expect(JSON.parse(body).error.code).toBe("forbidden");
        expect(body).not.toContain("apiKey");
      }
    }
  });

  it("answers loopback names", async () => {
    for (const host of ["127.0.0.1:8787", "localhost:8787", "[::1]:8787", "console.localhost", "127.0.0.2"]) {
      const response = await gateway.fetch(new Request(`http://${host}/api/v1/openapi.json`));
      expect(response.status, host).toBe(200);
    }
  });

  it("knows which names are loopback", () => {
    for (const name of ["localhost", "LOCALHOST.", "a.localhost", "127.0.0.1", "127.255.0.9", "[::1]"])
      expect(isLoopbackHost(name), name).toBe(true);
    for (const name of ["localhost.example", "127.0.0.1.nip.io", "128.0.0.1", "0.0.0.0", "[::2]", "evil.example"])
      expect(isLoopbackHost(name), name).toBe(false);
  });
});
