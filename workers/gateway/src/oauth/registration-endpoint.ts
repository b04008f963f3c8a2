import { illFormedStringPaths, label } from "@crm/contracts";
import { control, newId } from "@crm/db";
import type { DrizzleD1Database } from "drizzle-orm/d1";
import { z } from "zod";
import { randomSecret, secretHash } from "../identity/identity-secret";
import { type OAuthClient, redirectUriProblem } from "./clients";
import { OAuthError } from "./oauth-error";

const { oauthClients } = control;

/**
 * RFC 7591 client metadata this server accepts. Dynamic registration makes clients of the
 * authorization code grant (PKCE always): public ones (`token_endpoint_auth_method: "none"`, what MCP
 * clients register as, and what an omitted method means here) or confidential ones
 * (`client_secret_basic` or `client_secret_post`; the secret is in the answer, once). Client
 * credentials need an installation in an organization, which only an operator makes.
 */
const registrationRequest = z.looseObject({
  redirect_uris: z.array(z.string()).min(1).max(10),
  // Shown on the consent page as the application's name: one line, as every name of the API.
  client_name: label(255).optional(),
  token_endpoint_auth_method: z.enum(["none", "client_secret_basic", "client_secret_post"]).optional(),
  grant_types: z
    .array(z.enum(["authorization_code", "refresh_token"]))
    .min(1)
    .optional(),
  response_types: z.array(z.literal("code")).min(1).optional(),
});

const maxRegistrationBytes = 16 * 1024;
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

type AuthMethod = NonNullable<z.infer<typeof registrationRequest>["token_endpoint_auth_method"]>;

/** The registered client as RFC 7591 section 3.2.1 returns it, with a confidential client's secret (never expiring). */
function clientInformation(client: OAuthClient, authMethod: AuthMethod, secret: string | null) {
  return {
    client_id: client.id,
    client_id_issued_at: Math.floor(client.createdAt / 1000),
    ...(secret === null ? {} : { client_secret: secret, client_secret_expires_at: 0 }),
    client_name: client.name,
    redirect_uris: client.redirectUris,
    grant_types: client.grantTypes,
    response_types: ["code"],
    token_endpoint_auth_method: authMethod,
  };
}

/** `POST /oauth/register`: stores a new client and answers 201 with its information. */
export async function registrationEndpoint(db: DrizzleD1Database, request: Request, now = Date.now()) {
  if (!/^application\/json\s*(;|$)/i.test(request.headers.get("content-type") ?? ""))
    throw new OAuthError("invalid_client_metadata", "The body must be application/json");
  const bytes = await request.arrayBuffer();
  if (bytes.byteLength > maxRegistrationBytes)
    throw new OAuthError("invalid_client_metadata", "The registration request is larger than 16 KiB");
  let body: unknown;
  try {
    // Strict UTF-8, and no lone surrogates after parsing: as everywhere in the API, nothing stored reads back altered.
    body = JSON.parse(strictUtf8.decode(bytes));
  } catch {
    throw new OAuthError("invalid_client_metadata", "The body is not valid JSON in UTF-8");
  }
  const [illFormed] = illFormedStringPaths(body, "body");
  if (illFormed) throw new OAuthError("invalid_client_metadata", `${illFormed}: not well-formed Unicode (a lone surrogate)`);
  const parsed = registrationRequest.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join(".") || "body";
    if (issue?.path[0] === "redirect_uris") throw new OAuthError("invalid_redirect_uri", `${where}: ${issue.message}`);
    if (issue?.path[0] === "token_endpoint_auth_method")
      throw new OAuthError(
        "invalid_client_metadata",
        'token_endpoint_auth_method must be "none", "client_secret_basic" or "client_secret_post"',
      );
    if (issue?.path[0] === "grant_types")
      throw new OAuthError(
        "invalid_client_metadata",
        `${where}: only authorization_code and refresh_token can be registered; client_credentials needs an app installed in an organization by an operator`,
      );
    throw new OAuthError("invalid_client_metadata", `${where}: ${issue?.message ?? "invalid"}`);
  }
  const metadata = parsed.data;
  for (const uri of metadata.redirect_uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new OAuthError("invalid_redirect_uri", `The redirect URI ${uri.slice(0, 200)} ${problem}`);
  }
  const grantTypes: control.OAuthGrantType[] = [
    ...new Set(metadata.grant_types ?? (["authorization_code", "refresh_token"] as const)),
  ];
  if (!grantTypes.includes("authorization_code"))
    throw new OAuthError("invalid_client_metadata", "A registered client needs the authorization_code grant type");
  const authMethod = metadata.token_endpoint_auth_method ?? "none";
  const secret = authMethod === "none" ? null : randomSecret();
  const client: OAuthClient = {
    id: newId("cli", now),
    name: metadata.client_name ?? "Unnamed application",
    type: secret === null ? "public" : "confidential",
    secretHash: secret === null ? null : await secretHash(secret),
    redirectUris: [...new Set(metadata.redirect_uris)],
    grantTypes,
    registeredVia: "dynamic",
    createdAt: now,
  };
  await db.insert(oauthClients).values(client);
  return clientInformation(client, authMethod, secret);
}
