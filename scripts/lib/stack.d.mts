import type { Miniflare } from "miniflare";

export const buildDir: string;
export const gatewayBundle: string;
export const regionalBundle: string;
export function buildWorkers(): void;
export function startStack(options?: { gatewayVars?: Record<string, string>; regionVars?: Record<string, string> }): Promise<{
  mf: Miniflare;
  url: URL;
  demo: {
    baseUrl: string;
    organizations: {
      region: string;
      shard: number;
      users: { id: string; apiKey: string; email: string; password: string }[];
      workspaces: { id: string; name: string }[];
    }[];
  };
}>;
export function organizationDatabase(
  stack: { mf: Miniflare },
  organization: { region: string; shard: number },
): ReturnType<Miniflare["getD1Database"]>;
