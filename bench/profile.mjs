// CPU profiles of one Worker's isolate through workerd's inspector (`startStack({ inspectorPort })`):
// `const profile = await startProfile(port, "crm-api-us")`, the work, then `await profile.stop(file)`
// writes a `.cpuprofile` (Chrome DevTools opens it) and returns the functions by self time.
import { writeFile } from "node:fs/promises";

/** The inspector session of the isolate whose target title names `worker`: `send` a CDP method and await its result. */
export async function inspectorSession(port, worker) {
  const targets = await (await fetch(`http://127.0.0.1:${port}/json`)).json();
  const target = targets.find((candidate) => candidate.title?.includes(worker) || candidate.id?.includes(worker));
  if (!target) throw new Error(`No inspector target for ${worker}: ${targets.map((t) => t.title ?? t.id).join(", ")}`);
  const url = target.webSocketDebuggerUrl ?? `ws://127.0.0.1:${port}/${target.id}`;
  const socket = new WebSocket(url);
  await new Promise((resolve, reject) => {
    socket.addEventListener("open", resolve, { once: true });
    socket.addEventListener("error", reject, { once: true });
  });
  let next = 1;
  const pending = new Map();
  socket.addEventListener("message", (message) => {
    const { id, result, error } = JSON.parse(message.data);
    if (!pending.has(id)) return;
    const { resolve, reject } = pending.get(id);
    pending.delete(id);
    if (error) reject(new Error(error.message));
    else resolve(result);
  });
  return {
    send(method, params = {}) {
      const id = next++;
      socket.send(JSON.stringify({ id, method, params }));
      return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
    },
    close: () => socket.close(),
  };
}

/** Self time per function (and its total share), the heaviest first. */
function selfTimes(profile) {
  const byNode = new Map(profile.nodes.map((node) => [node.id, node]));
  const counts = new Map();
  for (const id of profile.samples) counts.set(id, (counts.get(id) ?? 0) + 1);
  const byFunction = new Map();
  for (const [id, count] of counts) {
    const { functionName, url, lineNumber } = byNode.get(id).callFrame;
    const key = `${functionName || "(anonymous)"} ${url.split("/").at(-1)}:${lineNumber + 1}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + count);
  }
  const total = profile.samples.length;
  return [...byFunction].sort((a, b) => b[1] - a[1]).map(([name, count]) => ({ name, share: count / total, count }));
}

export async function startProfile(port, worker) {
  const inspector = await inspectorSession(port, worker);
  await inspector.send("Profiler.enable");
  await inspector.send("Profiler.setSamplingInterval", { interval: 500 });
  await inspector.send("Profiler.start");
  const started = performance.now();
  return {
    async stop(file) {
      const { profile } = await inspector.send("Profiler.stop");
      inspector.close();
      if (file) await writeFile(file, JSON.stringify(profile));
      const idle = selfTimes(profile).find((entry) => entry.name.startsWith("(idle)"))?.share ?? 0;
      return { wallMs: performance.now() - started, idle, top: selfTimes(profile).slice(0, 25) };
    },
  };
}

/** The profile's summary as lines: busy share and the heaviest functions. */
export function describeProfile(label, { wallMs, idle, top }) {
  return [
    `${label}: ${Math.round(wallMs)} ms, isolate busy ${((1 - idle) * 100).toFixed(1)} %`,
    ...top.map(({ name, share }) => `  ${(share * 100).toFixed(1).padStart(5)} %  ${name}`),
  ].join("\n");
}
