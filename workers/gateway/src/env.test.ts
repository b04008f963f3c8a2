import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { assertGatewayEnv, type GatewayEnv } from "./env";

describe("assertGatewayEnv", () => {
  const gateway = env as unknown as GatewayEnv;

  it("accepts the benchmark's rate-limit switch only in the local stack (DEV_TOOLS on)", () => {
    expect(() => assertGatewayEnv({ ...gateway, DEV_TOOLS: "true", RATE_LIMITS_BENCH_SWITCH: "true" })).not.toThrow();
    expect(() => assertGatewayEnv({ ...gateway, DEV_TOOLS: undefined, RATE_LIMITS_BENCH_SWITCH: "true" })).toThrow(
      /RATE_LIMITS_BENCH_SWITCH is for the local benchmark only/,
    );
    expect(() => assertGatewayEnv({ ...gateway, DEV_TOOLS: undefined })).not.toThrow();
  });
});
