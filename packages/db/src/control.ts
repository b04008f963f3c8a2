import { regions } from "@crm/contracts";
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Control plane: the gateway's global D1. Who is who, which organization lives in which region.
 * Console sessions and the OAuth server's tables are in `control-identity.ts`, SSO in `control-sso.ts`;
 * `control-plane.ts` gathers all three.
 */

export const organizations = sqliteTable("organizations", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  region: text("region", { enum: regions }).notNull(),
  /** The D1 shard of its region that holds its data (1, 2, …; `regionShards` in contracts); chosen by `placeOrganization`. */
  shard: integer("shard").notNull(),
  createdAt: integer("created_at").notNull(),
});

export const users = sqliteTable("users", {
  id: text("id").primaryKey(),
  email: text("email").notNull().unique(),
  name: text("name").notNull(),
  /** `pbkdf2-sha256$<iterations>$<salt>$<hash>`; null for a user who cannot sign in to the console. */
  passwordHash: text("password_hash"),
  createdAt: integer("created_at").notNull(),
});

export const organizationMembers = sqliteTable(
  "organization_members",
  {
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    role: text("role", { enum: ["owner", "admin", "member"] }).notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.organizationId, table.userId] }), index("organization_members_user").on(table.userId)],
);

/** Agent identities act for an organization with their own API keys. */
export const agents = sqliteTable("agents", {
  id: text("id").primaryKey(),
  organizationId: text("organization_id")
    .notNull()
    .references(() => organizations.id),
  name: text("name").notNull(),
  createdAt: integer("created_at").notNull(),
});

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id),
    ownerType: text("owner_type", { enum: ["user", "agent"] }).notNull(),
    ownerId: text("owner_id").notNull(),
    name: text("name").notNull(),
    /** Public part of the key (`crm_<prefix>_…`), shown in listings; the lookup key. */
    prefix: text("prefix").notNull().unique(),
    /** SHA-256 of the whole key, hex. The key itself is never stored. */
    secretHash: text("secret_hash").notNull(),
    scopes: text("scopes", { mode: "json" }).$type<string[]>().notNull(),
    /** Workspace limit; null means every workspace the owner can access. */
    workspaceIds: text("workspace_ids", { mode: "json" }).$type<string[] | null>(),
    expiresAt: integer("expires_at"),
    revokedAt: integer("revoked_at"),
    lastUsedAt: integer("last_used_at"),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [index("api_keys_owner").on(table.ownerType, table.ownerId)],
);

/** Activity history of a key: what it did, when, from where. */
export const apiKeyActivity = sqliteTable(
  "api_key_activity",
  {
    id: text("id").primaryKey(),
    apiKeyId: text("api_key_id")
      .notNull()
      .references(() => apiKeys.id),
    at: integer("at").notNull(),
    method: text("method").notNull(),
    route: text("route").notNull(),
    status: integer("status").notNull(),
    ip: text("ip"),
  },
  (table) => [index("api_key_activity_key_at").on(table.apiKeyId, table.at)],
);

/** Token-usage ledger: integer cost units and successful requests per organization, UTC day and route. */
export const tokenUsage = sqliteTable(
  "token_usage",
  {
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id),
    day: text("day").notNull(),
    route: text("route").notNull(),
    requests: integer("requests").notNull(),
    costUnits: integer("cost_units").notNull(),
  },
  (table) => [primaryKey({ columns: [table.organizationId, table.day, table.route] })],
);

/** Mailbox address (lower-cased) → organization and workspace: where the gateway's email() handler sends inbound mail. */
export const mailboxes = sqliteTable(
  "mailboxes",
  {
    address: text("address").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id),
    workspaceId: text("workspace_id").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [index("mailboxes_organization").on(table.organizationId)],
);

/**
 * Provider connection → organization: where the gateway sends a signed inbound webhook (the
 * organization's region), without asking any region. Written by the gateway when the region has
 * created the connection, removed when the region has deleted it.
 */
export const connectionRoutes = sqliteTable("connection_routes", {
  connectionId: text("connection_id").primaryKey(),
  organizationId: text("organization_id")
    .notNull()
    .references(() => organizations.id),
  createdAt: integer("created_at").notNull(),
});
