// The gateway pipeline against the bare handler: what authentication, the limiter and routing add.
import { buildDir } from "../scripts/lib/stack.mjs";
import { startBare } from "./bare.mjs";
import { floorComparison, startFloor } from "./floor.mjs";
import { load } from "./load.mjs";
import { header, row } from "./report.mjs";

export async function pipelineSection(stack, auth, { durationMs }) {
  const bare = await startBare();
  const pipelineUrl = new URL("/api/v1/workspaces", stack.url).href;
  const limiterCalls = async () => (await (await fetch(new URL("/__dev/rate-limiter-calls", stack.url))).json()).calls;
  console.log(`\nGateway pipeline vs bare handler (${durationMs / 1000} s per figure, ${new Date().toISOString()})\n`);
  console.log(`${header.replace("|\n", "| DO calls / request |\n")}--------------------|`);
  const figures = {};
  const withCalls = async (name, run) => {
    const before = await limiterCalls();
    const figure = await run();
    figure.callsPerRequest = ((await limiterCalls()) - before) / figure.sent;
    console.log(`${row(name, figure)} ${figure.callsPerRequest.toFixed(3).padStart(18)} |`);
    return figure;
  };
  for (const connections of [1, 32]) {
    figures[`bare${connections}`] = await load(bare.url, { connections, durationMs });
    console.log(row(`(a) bare Hono + 1 D1 read, c=${connections}`, figures[`bare${connections}`]));
    figures[`full${connections}`] = await withCalls(`(b) full pipeline GET /workspaces, c=${connections}`, () =>
      load(pipelineUrl, { connections, durationMs, headers: auth }),
    );
    figures[`counted${connections}`] = await load(bare.countedUrl, { connections, durationMs });
    console.log(row(`(c) = (a) + 5 parallel in-memory DO calls, c=${connections}`, figures[`counted${connections}`]));
    figures[`unlimited${connections}`] = await withCalls(`(d) = (b) with the limiter switched off, c=${connections}`, () =>
      load(pipelineUrl, { connections, durationMs, headers: { ...auth, "x-bench-rate-limits": "off" } }),
    );
  }
  console.log(`
ratio b/a throughput at c=32: ${(figures.full32.rps / figures.bare32.rps).toFixed(2)}
ratio b/d throughput at c=32: ${(figures.full32.rps / figures.unlimited32.rps).toFixed(2)} (target >= 0.9: the limiter costs at most 10%)
ratio c/a throughput at c=32: ${(figures.counted32.rps / figures.bare32.rps).toFixed(2)} (five Durable Object calls alone, no limiter logic)
added p50 (b - a) at c=1: ${(figures.full1.p50 - figures.bare1.p50).toFixed(2)} ms (target <= 1.0 ms)
limiter's p50 (b - d) at c=1: ${(figures.full1.p50 - figures.unlimited1.p50).toFixed(2)} ms
Durable Object calls per request (b): ${figures.full1.callsPerRequest.toFixed(3)} at c=1, ${figures.full32.callsPerRequest.toFixed(3)} at c=32 (target <= 0.2)
`);
  const floor = await startFloor(buildDir);
  await floorComparison({
    pipeline: { url: pipelineUrl, headers: auth },
    bareUrl: bare.url,
    floorUrl: floor.url,
    durationMs,
    row,
  });
  await floor.mf.dispose();
  await bare.mf.dispose();
}
