import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { gatewayConfig } from "./config";

describe("gatewayConfig", () => {
  const gateway = env as unknown as Record<string, unknown>;

  it("accepts the benchmark's rate-limit switch only in the local stack (DEV_TOOLS on)", () => {
    expect(() => gatewayConfig({ ...gateway, DEV_TOOLS: "true", RATE_LIMITS_BENCH_SWITCH: "true" })).not.toThrow();
    expect(() => gatewayConfig({ ...gateway, DEV_TOOLS: undefined, RATE_LIMITS_BENCH_SWITCH: "true" })).toThrow(
      /RATE_LIMITS_BENCH_SWITCH is for the local benchmark only/,
    );
    expect(() => gatewayConfig({ ...gateway, DEV_TOOLS: undefined })).not.toThrow();
  });

  it("types the variables once: a factor is a number, a switch a boolean", () => {
    const config = gatewayConfig({ ...gateway, RATE_LIMIT_FACTOR: "2.5", DEV_TOOLS: "true" });
    expect(config.rateLimitFactor).toBe(2.5);
    expect(config.devTools).toBe(true);
    expect(gatewayConfig({ ...gateway, RATE_LIMIT_FACTOR: undefined, DEV_TOOLS: undefined })).toMatchObject({
      rateLimitFactor: undefined,
      devTools: false,
    });
  });

  it("refuses a non-numeric budget factor, a missing secret and a missing binding at the start, naming each", () => {
    expect(() => gatewayConfig({ ...gateway, RATE_LIMIT_FACTOR: "fast" })).toThrow(
      "Gateway misconfigured: RATE_LIMIT_FACTOR: must be a positive number",
    );
    expect(() => gatewayConfig({ ...gateway, RATE_LIMIT_FACTOR: "0" })).toThrow(/RATE_LIMIT_FACTOR: must be a positive number/);
    expect(() => gatewayConfig({ ...gateway, IDENTITY_SECRET: "" })).toThrow(/IDENTITY_SECRET: missing/);
    expect(() => gatewayConfig({ ...gateway, SSO_STORE_SECRET: undefined })).toThrow(/SSO_STORE_SECRET: missing/);
    expect(() => gatewayConfig({ ...gateway, API_EU: undefined })).toThrow(/API_EU: missing binding/);
    expect(() => gatewayConfig({ ...gateway, DEV_TOOLS: "yes" })).toThrow(/DEV_TOOLS: must be "true" or "false"/);
  });

  it("parses an environment once: the same object answers the same configuration", () => {
    const environment = { ...gateway };
    expect(gatewayConfig(environment)).toBe(gatewayConfig(environment));
  });
});
