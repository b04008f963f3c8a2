import type { Miniflare } from "miniflare";

export const buildDir: string;
export function buildWorkers(): void;
export function startStack(options?: { gatewayVars?: Record<string, string>; regionVars?: Record<string, string> }): Promise<{
  mf: Miniflare;
  url: URL;
  demo: { baseUrl: string; organizations: { users: { apiKey: string }[] }[] };
}>;
