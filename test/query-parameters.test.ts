import { catalogue, type Operation, openApiDocument } from "@crm/contracts";
import { beforeAll, describe, expect, it } from "vitest";
import { credentialFor } from "./console-browser";
import { call, cast } from "./stack";

/**
 * Query parameters over the whole catalogue: every operation refuses a query parameter it does
 * not declare, and every integer query parameter takes only a plain decimal integer. The query is
 * validated before anything else of the request, so placeholder ids and no body are enough.
 */

interface Parameter {
  name: string;
  in: string;
  schema: { type?: string; minimum?: number };
}

const document = openApiDocument("http://127.0.0.1:8787");
const parametersOf = (operation: Operation) => {
  const pathItem = (document.paths?.[operation.path] ?? {}) as Record<string, { parameters?: Parameter[] }>;
  return (pathItem[operation.method]?.parameters ?? []).filter((parameter) => parameter.in === "query");
};

/** The operation's path with a well-formed placeholder id for each path parameter. */
const pathOf = (operation: Operation) => operation.path.replace(/\{[^}]+\}/g, "zz_0000000000");

interface ErrorBody {
  error: { code: string; details?: { path: string; message: string }[] };
}

async function detailsFor(operation: Operation, query: string, headers: Record<string, string>) {
  const response = await call(`${pathOf(operation)}?${query}`, { method: operation.method.toUpperCase(), headers });
  const body = (await response.json()) as ErrorBody;
  return { status: response.status, code: body.error?.code, paths: (body.error?.details ?? []).map((detail) => detail.path) };
}

/** Spellings of a number that are not a plain decimal integer; `05` too: one spelling per number. */
const notPlainIntegers = ["1e2", "+5", "0x10", " 5", "5 ", "5.0", "05", "", "-1", "1_0", "５", "Infinity"];

const named = (operations: readonly Operation[]) =>
  operations.map((operation) => ({ name: `${operation.method.toUpperCase()} ${operation.path}`, operation }));

describe.each(named(catalogue))("unknown query parameters: $name", ({ operation }) => {
  // A fresh organization per operation: its rate-limit windows are its own.
  let credential: Record<string, string>;
  beforeAll(async () => {
    credential = await credentialFor(operation);
  });

  it("400 for a query parameter the operation does not declare", async () => {
    const result = await detailsFor(operation, "unexpected=1", credential);
    expect(result.status).toBe(400);
    expect(result.code).toBe("invalid_request");
    expect(result.paths).toContain("query.unexpected");
  });
});

const integersOf = (operation: Operation) => parametersOf(operation).filter((parameter) => parameter.schema.type === "integer");

describe.each(named(catalogue.filter((operation) => integersOf(operation).length > 0)))(
  "integer query parameters: $name",
  ({ operation }) => {
    let credential: Record<string, string>;
    beforeAll(async () => {
      credential = await credentialFor(operation);
    });

    it.each(integersOf(operation))("$name takes only a plain decimal integer", async (parameter) => {
      for (const value of notPlainIntegers) {
        const result = await detailsFor(operation, `${parameter.name}=${encodeURIComponent(value)}`, credential);
        expect(result.status, `${parameter.name}=${JSON.stringify(value)}`).toBe(400);
        expect(result.paths, `${parameter.name}=${JSON.stringify(value)}`).toContain(`query.${parameter.name}`);
      }
      const plain = await detailsFor(operation, `${parameter.name}=${parameter.schema.minimum ?? 1}`, credential);
      expect(plain.paths, `${parameter.name}=${parameter.schema.minimum ?? 1}`).not.toContain(`query.${parameter.name}`);
    });
  },
);

const stringParameterOf = (operation: Operation) =>
  parametersOf(operation).find((parameter) => parameter.schema.type === "string" || parameter.schema.type === undefined);

describe.each(named(catalogue.filter((operation) => stringParameterOf(operation) !== undefined)))(
  "query values that are not UTF-8: $name",
  ({ operation }) => {
    let credential: Record<string, string>;
    beforeAll(async () => {
      credential = await credentialFor(operation);
    });

    it("400 naming the parameter whose percent-encoding is not UTF-8 (a lone surrogate, a stray byte)", async () => {
      const name = stringParameterOf(operation)?.name as string;
      for (const value of ["%ED%A0%80", "%FF", "ok%C3"]) {
        const result = await detailsFor(operation, `${name}=${value}`, credential);
        expect(result.status, `${name}=${value}`).toBe(400);
        expect(result.paths, `${name}=${value}`).toContain(`query.${name}`);
      }
    });
  },
);

describe("a search that is not UTF-8", () => {
  it("is 400 naming q on the conversation list, never a search for U+FFFD", async () => {
    const { alice, sales } = await cast();
    const response = await call(`/inbox/conversations?workspaceId=${sales.id}&q=%ED%A0%80`, { key: alice.apiKey });
    expect(response.status).toBe(400);
    const body = (await response.json()) as ErrorBody;
    expect(body.error.details).toEqual([{ path: "query.q", message: "Not valid UTF-8" }]);
    expect((await call(`/inbox/conversations?workspaceId=${sales.id}&q=caf%C3%A9+au+lait`, { key: alice.apiKey })).status).toBe(
      200,
    );
  });
});
