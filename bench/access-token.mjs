// An OAuth access token for the benchmark, from the token endpoint like any client gets one: the
// demo web app (installed in Acme) runs the client-credentials grant with its secret from the seed.
export async function benchAccessToken(stack) {
  const app = stack.demo.oauthClients.find((client) => client.clientSecret);
  // RFC 6749 section 2.3.1: id and secret form-encoded, then Basic.
  const credentials = `${encodeURIComponent(app.clientId)}:${encodeURIComponent(app.clientSecret)}`;
  const response = await fetch(new URL("/oauth/token", stack.url), {
    method: "POST",
    headers: {
      authorization: `Basic ${Buffer.from(credentials).toString("base64")}`,
      "content-type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({ grant_type: "client_credentials" }),
  });
  if (!response.ok) throw new Error(`the token endpoint answered ${response.status}: ${await response.text()}`);
  return (await response.json()).access_token;
}
