// How every section prints its figures, and the small waits they share.

export const ms = (value) => value.toFixed(2).padStart(8);
export const row = (name, figures) =>
  `| ${name.padEnd(60)} | ${String(Math.round(figures.rps)).padStart(7)} | ${ms(figures.p50)} | ${ms(figures.p99)} |`;
export const header = `| ${"scenario".padEnd(60)} |     rps | p50 (ms) | p99 (ms) |\n|${"-".repeat(62)}|---------|----------|----------|`;
export const percentile = (values, p) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))];

/** A wait that reports instead of hanging the run when what it waits for never comes. */
export async function within(promise, what, ms = 300_000) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms / 1000} s`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs `task(i)` for i in [0, count) on `connections` concurrent workers. */
export async function runConcurrently(count, connections, task) {
  let next = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

/** A URL of the stack's public API. */
export const apiUrl = (stack, path) => new URL(`/api/v1${path}`, stack.url).href;

/** The object type of `slug` in a workspace, as a client finds it. */
export async function objectTypeOf(stack, headers, workspaceId, slug) {
  const { objects } = await (await fetch(apiUrl(stack, `/crm/objects?workspaceId=${workspaceId}`), { headers })).json();
  return objects.find((object) => object.slug === slug);
}
