import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { organizations, users } from "./control";

/**
 * Identity in the control D1 (DESIGN.md section 3): console sessions and the OAuth 2.1 server's
 * clients, installations, grants, codes, refresh tokens and signing keys. Every secret a client or
 * browser holds is stored as its SHA-256 only; strongly consistent D1, so single use is a
 * compare-and-set, not a hope.
 */

/** A signed-in console browser. The cookie holds a random token; only its hash is here. */
export const consoleSessions = sqliteTable(
  "console_sessions",
  {
    id: text("id").primaryKey(),
    tokenHash: text("token_hash").notNull().unique(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    /** The organization the console works in; null until chosen by a user of several organizations. */
    organizationId: text("organization_id").references(() => organizations.id),
    createdAt: integer("created_at").notNull(),
    lastSeenAt: integer("last_seen_at").notNull(),
    /** Absolute end, whatever the activity (7 days after creation). */
    expiresAt: integer("expires_at").notNull(),
    revokedAt: integer("revoked_at"),
  },
  (table) => [index("console_sessions_user").on(table.userId)],
);

export type OAuthGrantType = "authorization_code" | "refresh_token" | "client_credentials";

/** Applications that ask for tokens: confidential (a secret) or public (PKCE only, e.g. MCP clients). */
export const oauthClients = sqliteTable("oauth_clients", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  type: text("type", { enum: ["confidential", "public"] }).notNull(),
  /** SHA-256 of the client secret, hex; null for public clients. */
  secretHash: text("secret_hash"),
  /** Exact redirect URIs; an authorization request must name one of them verbatim. */
  redirectUris: text("redirect_uris", { mode: "json" }).$type<string[]>().notNull(),
  grantTypes: text("grant_types", { mode: "json" }).$type<OAuthGrantType[]>().notNull(),
  /** `dynamic`: RFC 7591 registration; `manual`: created by an operator or the seed. */
  registeredVia: text("registered_via", { enum: ["dynamic", "manual"] }).notNull(),
  createdAt: integer("created_at").notNull(),
});

/** An app installed in an organization may get client-credentials tokens for it, within these scopes. */
export const oauthAppInstallations = sqliteTable(
  "oauth_app_installations",
  {
    clientId: text("client_id")
      .notNull()
      .references(() => oauthClients.id),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id),
    scopes: text("scopes", { mode: "json" }).$type<string[]>().notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.clientId, table.organizationId] })],
);

/**
 * What a user (or, for an app, an organization) allowed a client. Every access and refresh token
 * names its grant; revoking the grant stops refresh at once and its access tokens within 60 s.
 */
export const oauthGrants = sqliteTable(
  "oauth_grants",
  {
    id: text("id").primaryKey(),
    clientId: text("client_id")
      .notNull()
      .references(() => oauthClients.id),
    /** Null for an app's client-credentials grant. */
    userId: text("user_id").references(() => users.id),
    /** Null for a user of several organizations who chose none (the token then carries no `org`). */
    organizationId: text("organization_id").references(() => organizations.id),
    scopes: text("scopes", { mode: "json" }).$type<string[]>().notNull(),
    /** RFC 8707 resource: the access tokens' audience. */
    resource: text("resource").notNull(),
    createdAt: integer("created_at").notNull(),
    revokedAt: integer("revoked_at"),
  },
  (table) => [
    index("oauth_grants_user").on(table.userId),
    index("oauth_grants_client").on(table.clientId),
    index("oauth_grants_revoked_at").on(table.revokedAt),
  ],
);

/** Authorization codes: single use, 60 s, bound to the redirect URI and the PKCE challenge. */
export const oauthAuthorizationCodes = sqliteTable(
  "oauth_authorization_codes",
  {
    codeHash: text("code_hash").primaryKey(),
    grantId: text("grant_id")
      .notNull()
      .references(() => oauthGrants.id),
    redirectUri: text("redirect_uri").notNull(),
    /** S256 code challenge (base64url of the verifier's SHA-256). */
    codeChallenge: text("code_challenge").notNull(),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
    usedAt: integer("used_at"),
  },
  (table) => [index("oauth_authorization_codes_grant").on(table.grantId)],
);

/** Refresh tokens, rotated on every use: a used one presented again is a replay and revokes the grant. */
export const oauthRefreshTokens = sqliteTable(
  "oauth_refresh_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    grantId: text("grant_id")
      .notNull()
      .references(() => oauthGrants.id),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
    usedAt: integer("used_at"),
    /** Hash of the token that replaced this one at its use. */
    replacedBy: text("replaced_by"),
  },
  (table) => [index("oauth_refresh_tokens_grant").on(table.grantId)],
);

/** ES256 keys that sign access tokens. A retired key stays published until its last token has expired. */
export const oauthSigningKeys = sqliteTable("oauth_signing_keys", {
  kid: text("kid").primaryKey(),
  publicJwk: text("public_jwk", { mode: "json" }).$type<JsonWebKey>().notNull(),
  /** The private JWK, AES-GCM encrypted with a key derived from `IDENTITY_SECRET` (`<iv>.<ciphertext>`, base64url). */
  privateKeyWrapped: text("private_key_wrapped").notNull(),
  createdAt: integer("created_at").notNull(),
  retiredAt: integer("retired_at"),
});
