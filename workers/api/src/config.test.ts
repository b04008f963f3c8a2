import { describe, expect, it } from "vitest";
import { regionConfig, webhookSettings } from "./config";

/** A region's environment as the runtime hands it: bindings are objects, variables strings. */
const binding = {};
const environment = {
  REGION: "us",
  DB_1: binding,
  DB_2: binding,
  GATEWAY_CONTEXT_SECRET: "context-secret",
  CURSOR_SECRET: "cursor-secret",
  PUBLIC_ORIGIN: "https://api.example.com",
  SEND_EMAIL: binding,
  ATTACHMENTS: binding,
  GATEWAY: binding,
};

describe("regionConfig", () => {
  it("types the environment once per object", () => {
    const env = { ...environment };
    expect(regionConfig(env)).toEqual({
      region: "us",
      gatewayContextSecret: "context-secret",
      cursorSecret: "cursor-secret",
      publicOrigin: "https://api.example.com",
      devTools: false,
    });
    expect(regionConfig(env)).toBe(regionConfig(env));
  });

  it("refuses an unknown region, a missing secret and a missing shard database at the start, naming each", () => {
    expect(() => regionConfig({ ...environment, REGION: "ap" })).toThrow(
      /Regional Worker misconfigured: REGION: must be one of us, eu/,
    );
    expect(() => regionConfig({ ...environment, CURSOR_SECRET: "" })).toThrow(/CURSOR_SECRET: missing/);
    expect(() => regionConfig({ ...environment, DB_2: undefined })).toThrow(/DB_2: missing binding/);
  });
});

describe("webhookSettings", () => {
  it("reads the development settings typed, and production's absence as the defaults", () => {
    expect(webhookSettings({})).toEqual({ allowLoopback: false, burstFactor: 1, timeoutMs: undefined, retrySchedule: undefined });
    expect(
      webhookSettings({
        WEBHOOKS_ALLOW_LOOPBACK: "true",
        WEBHOOK_BURST_FACTOR: "100",
        WEBHOOK_TIMEOUT_MS: "1500",
        WEBHOOK_RETRY_SCHEDULE: "1,1,1",
      }),
    ).toEqual({ allowLoopback: true, burstFactor: 100, timeoutMs: 1500, retrySchedule: [1, 1, 1] });
  });

  it("refuses a non-numeric factor or timeout and a malformed schedule instead of NaN", () => {
    expect(() => webhookSettings({ WEBHOOK_BURST_FACTOR: "lots" })).toThrow(/WEBHOOK_BURST_FACTOR: must be a positive number/);
    expect(() => webhookSettings({ WEBHOOK_TIMEOUT_MS: "15s" })).toThrow(/WEBHOOK_TIMEOUT_MS: must be a positive number/);
    expect(() => webhookSettings({ WEBHOOK_RETRY_SCHEDULE: "1,,5" })).toThrow(/WEBHOOK_RETRY_SCHEDULE: must be whole seconds/);
  });
});
