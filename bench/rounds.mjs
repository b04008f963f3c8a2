// Several requests measured in alternating short rounds rather than one after the other, so that
// what changes over a run (a shared machine's load, a freshly seeded database settling) falls on
// all of them alike.
import { load } from "./load.mjs";

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * `candidates`: name → `{ url, ...load options }`. Each round loads every candidate for
 * `durationMs / rounds`. `figure(name)` gives the medians of its rounds; `ratio(name, baseline,
 * metric)` the median of the per-round ratios, each taken within one round.
 */
export async function alternatingRounds(candidates, { connections, durationMs, rounds = 10 }) {
  const roundMs = durationMs / rounds;
  const runs = Object.fromEntries(Object.keys(candidates).map((name) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const [name, { url, ...request }] of Object.entries(candidates)) {
      runs[name].push(await load(url, { connections, durationMs: roundMs, warmupMs: 200, ...request }));
    }
  }
  return {
    rounds,
    roundMs,
    figure: (name) =>
      Object.fromEntries(["rps", "p50", "p99"].map((metric) => [metric, median(runs[name].map((run) => run[metric]))])),
    ratio: (name, baseline, metric) => median(runs[name].map((run, round) => run[metric] / runs[baseline][round][metric])),
  };
}
