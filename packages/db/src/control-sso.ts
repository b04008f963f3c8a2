import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { organizations } from "./control";

/** An organization's single sign-on connection, as the identity service last pushed it (one per organization). */
export const ssoConnections = sqliteTable("sso_connections", {
  organizationId: text("organization_id")
    .primaryKey()
    .references(() => organizations.id),
  protocol: text("protocol", { enum: ["saml", "oidc"] }).notNull(),
  /** Lower-case domain names whose users sign in through this connection. */
  domains: text("domains", { mode: "json" }).$type<string[]>().notNull(),
  /** SAML only: where the identity provider publishes its metadata. */
  metadataUrl: text("metadata_url"),
  /** OIDC only: the issuer, whose discovery document names the rest. */
  issuer: text("issuer"),
  /** Members with a matching e-mail domain must sign in through it. */
  enforced: integer("enforced", { mode: "boolean" }).notNull(),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

/** The domains of SSO connections, each claimed by one organization (migration 0008). */
export const ssoDomains = sqliteTable(
  "sso_domains",
  {
    domain: text("domain").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id),
  },
  (table) => [index("sso_domains_organization").on(table.organizationId)],
);

/**
 * Nonces of accepted SSO pushes: the primary key refuses a second use, and being written in the
 * same D1 batch as the connection makes that hold for concurrent pushes too.
 */
export const ssoStoreNonces = sqliteTable(
  "sso_store_nonces",
  {
    nonce: text("nonce").primaryKey(),
    /** When the push's timestamp leaves the tolerance; the row is pruned a while after. */
    expiresAt: integer("expires_at").notNull(),
  },
  (table) => [index("sso_store_nonces_expiry").on(table.expiresAt)],
);
