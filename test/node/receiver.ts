import { createServer, type IncomingMessage, type Server } from "node:http";
import type { TestProject } from "vitest/node";

/**
 * The outside world for webhook tests: a real HTTP receiver on loopback, started in Node before
 * the Workers tests. It records every request, answers with responses a test programs per path
 * (`POST /__program/<path>` with a list of `{ status, headers }`; then 200), and lists what it
 * received (`GET /__requests/<path>`, or only how many requests and distinct `webhook-id`s with
 * `GET /__summary/<path>`). A path starting with `/hang-` is an endpoint that accepts the
 * connection and the request and never answers; a programmed response with `delayMs` answers that late.
 */

interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

const readBody = (request: IncomingMessage) =>
  new Promise<string>((resolve) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
  });

let server: Server;

export default async function setup(project: TestProject) {
  const received: Received[] = [];
  const programmed = new Map<string, { status: number; headers?: Record<string, string>; delayMs?: number }[]>();
  server = createServer(async (request, response) => {
    const url = new URL(request.url ?? "/", "http://receiver");
    const body = await readBody(request);
    if (url.pathname.startsWith("/__program/")) {
      programmed.set(url.pathname.slice("/__program".length), JSON.parse(body));
      response.writeHead(204).end();
      return;
    }
    if (url.pathname.startsWith("/__summary/")) {
      const path = url.pathname.slice("/__summary".length);
      const requests = received.filter((item) => item.path === path);
      const webhookIds = new Set(requests.map((item) => item.headers["webhook-id"]));
      response
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ requests: requests.length, webhookIds: webhookIds.size }));
      return;
    }
    if (url.pathname.startsWith("/__requests/")) {
      const path = url.pathname.slice("/__requests".length);
      response
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify(received.filter((item) => item.path === path)));
      return;
    }
    received.push({ path: url.pathname, headers: request.headers as Record<string, string>, body, at: Date.now() });
    if (url.pathname.startsWith("/hang-")) return;
    const next = programmed.get(url.pathname)?.shift() ?? { status: 200 };
    if (next.delayMs) await new Promise((resolve) => setTimeout(resolve, next.delayMs));
    if (response.destroyed) return;
    response.writeHead(next.status, next.headers ?? {}).end("ok");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  project.provide("receiverUrl", `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`);
  return () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
}

declare module "vitest" {
  export interface ProvidedContext {
    receiverUrl: string;
  }
}
