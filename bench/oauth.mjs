import { benchAccessToken } from "./access-token.mjs";
import { header, row } from "./report.mjs";
import { alternatingRounds } from "./rounds.mjs";

/**
 * The same request with an OAuth access token and with an API key, both warm (the key cached, the
 * signing keys and revoked grants loaded, the token verified once): what a JWT costs against a
 * cached key. The two alternate in short rounds, so that the load of a shared machine falls on both
 * alike; the ratios are the medians of the per-round ratios, the figures the medians of the rounds.
 */
export async function oauthSection(stack, auth, { durationMs }) {
  const jwt = { authorization: `Bearer ${await benchAccessToken(stack)}` };
  const url = new URL("/api/v1/workspaces", stack.url).href;
  for (const headers of [auth, jwt]) {
    const response = await fetch(url, { headers });
    if (response.status !== 200) throw new Error(`GET /workspaces answered ${response.status} before the run`);
  }
  const rounds = 10;
  console.log(
    `\nOAuth access token vs API key, GET /workspaces (${rounds} alternating rounds of ${durationMs / rounds / 1000} s each, medians, ${new Date().toISOString()})\n`,
  );
  console.log(header);
  const ratios = {};
  for (const connections of [1, 32]) {
    const measured = await alternatingRounds(
      { key: { url, headers: auth }, jwt: { url, headers: jwt } },
      { connections, durationMs, rounds },
    );
    console.log(row(`API key, c=${connections}`, measured.figure("key")));
    console.log(row(`OAuth JWT (ES256), c=${connections}`, measured.figure("jwt")));
    ratios[connections] = { p50: measured.ratio("jwt", "key", "p50"), rps: measured.ratio("jwt", "key", "rps") };
  }
  console.log(`
JWT p50 / key p50 at c=1 (median of rounds): ${ratios[1].p50.toFixed(2)} (target <= 1.1)
JWT rps / key rps at c=32 (median of rounds): ${ratios[32].rps.toFixed(2)} (target >= 0.9)
`);
}
