import { catalogue } from "@crm/contracts";
import { describe, expect, it } from "vitest";
import { call } from "./stack";

describe("GET /openapi.json", () => {
  it("is an OpenAPI 3.1 document of every catalogue operation with both security schemes and every error", async () => {
    const response = await call("/openapi.json");
    expect(response.status).toBe(200);
    const document = (await response.json()) as {
      openapi: string;
      info: { version: string };
      servers: { url: string }[];
      components: { securitySchemes: Record<string, { type: string }> };
      paths: Record<
        string,
        Record<
          string,
          {
            operationId: string;
            security: unknown[];
            responses: Record<string, unknown>;
            "x-scope": unknown;
            "x-token-cost": number;
          }
        >
      >;
    };
    expect(document.openapi).toBe("3.1.0");
    expect(document.info.version).toBe("1.0.0");
    expect(document.servers[0]?.url).toBe("http://127.0.0.1:8787/api/v1");
    expect(document.components.securitySchemes.ApiKeyBearer?.type).toBe("http");
    expect(document.components.securitySchemes.ServiceOAuth?.type).toBe("oauth2");
    for (const operation of catalogue) {
      const entry = document.paths[operation.path]?.[operation.method];
      expect(entry?.operationId).toBe(operation.operationId);
      expect(entry?.security).toEqual([{ ApiKeyBearer: [] }, { ServiceOAuth: operation.scope ? [operation.scope] : [] }]);
      expect(entry?.["x-token-cost"]).toBe(operation.costUnits / 100);
      expect(Object.keys(entry?.responses ?? {})).toEqual(expect.arrayContaining(["400", "401", "403", "404", "429", "500"]));
    }
  });
});

describe("GET /docs", () => {
  it("renders the reference as a self-contained HTML page", async () => {
    const response = await call("/docs");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    const page = await response.text();
    expect(page).not.toMatch(/<script|https?:\/\/(cdn|unpkg|fonts)/);
    for (const operation of catalogue) expect(page).toContain(operation.operationId);
  });
});
