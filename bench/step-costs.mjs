// What single steps of the pipeline cost in workerd itself, each run 2 000 times in one request of a
// throwaway Worker and timed from outside (inside a Worker the clock stands still while it computes):
// the actor context's HMAC signing and verifying, base64url, and a request log line. The CPU profiles
// of a loaded machine put hundreds of µs a request under `sign`; this says what signing costs.
// Not a section of the benchmark: `bash scripts/toolchain.sh node bench/step-costs.mjs`
import { convertV4MiniflareOptions, Miniflare } from "miniflare";

const script = `
const encoder = new TextEncoder();
let key;
export default {
  async fetch(request) {
    const url = new URL(request.url);
    const times = Number(url.searchParams.get("times"));
    key ??= await crypto.subtle.importKey("raw", encoder.encode("a context secret"), { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
    // About the size of a signed actor context: an API key's actor (18 scopes) and its request.
    const data = encoder.encode("x".repeat(1200));
    const signature = await crypto.subtle.sign("HMAC", key, data);
    let sink = 0;
    for (let i = 0; i < times; i++) {
      if (url.pathname === "/sign") sink += (await crypto.subtle.sign("HMAC", key, data)).byteLength;
      else if (url.pathname === "/verify") sink += (await crypto.subtle.verify("HMAC", key, signature, data)) ? 1 : 0;
      else if (url.pathname === "/base64url") sink += data.toBase64({ alphabet: "base64url", omitPadding: true }).length;
      else if (url.pathname === "/log-line")
        console.log(JSON.stringify({ level: "info", message: "request", requestId: "req_01m8jedbqfs3vk07mam8d78a4s", route: "GET /api/v1/workspaces", status: 200, durationMs: 1, i }));
      else sink += 1;
    }
    return new Response(String(sink));
  },
};`;

const times = 2_000;
const mf = new Miniflare(
  convertV4MiniflareOptions({
    handleStructuredLogs: () => {},
    workers: [{ name: "step-costs", modules: true, script, compatibilityDate: "2026-11-01" }],
  }),
);
const url = await mf.ready;
const runs = 7;
const perStep = async (path) => {
  const samples = [];
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    await (await fetch(new URL(`${path}?times=${times}`, url))).text();
    samples.push(performance.now() - started);
  }
  return (samples.sort((x, y) => x - y)[Math.floor(runs / 2)] / times) * 1000;
};
await perStep("/loop"); // warm the isolate
const loop = await perStep("/loop");
for (const step of ["/sign", "/verify", "/base64url", "/log-line"])
  console.log(
    `${step.slice(1)}: ${((await perStep(step)) - loop).toFixed(2)} µs (median of ${runs} runs of ${times}, the empty loop's ${loop.toFixed(2)} µs taken off)`,
  );
await mf.dispose();
