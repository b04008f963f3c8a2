import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { apiKeys } from "./control";
import { consoleSessions } from "./control-identity";

/**
 * A key the console has just made, waiting for the one page view that shows it (post/redirect/get).
 * `id` is the SHA-256 of the reference in the page's URL; `sealedKey` is the key under AES-GCM with
 * a key derived from that reference (`<iv>.<ciphertext>`, base64url), unreadable from this row alone.
 */
export const consoleKeyReveals = sqliteTable(
  "console_key_reveals",
  {
    id: text("id").primaryKey(),
    sessionId: text("session_id")
      .notNull()
      .references(() => consoleSessions.id),
    apiKeyId: text("api_key_id")
      .notNull()
      .references(() => apiKeys.id),
    /** Set when the key replaced another: the page says that one no longer works. */
    replacedKeyId: text("replaced_key_id").references(() => apiKeys.id),
    sealedKey: text("sealed_key").notNull(),
    expiresAt: integer("expires_at").notNull(),
  },
  (table) => [index("console_key_reveals_expires_at").on(table.expiresAt)],
);

/** The token-usage ledger per API key, UTC day and route (the organization's is `token_usage`). */
export const tokenUsageByKey = sqliteTable(
  "token_usage_by_key",
  {
    apiKeyId: text("api_key_id")
      .notNull()
      .references(() => apiKeys.id),
    day: text("day").notNull(),
    route: text("route").notNull(),
    requests: integer("requests").notNull(),
    costUnits: integer("cost_units").notNull(),
  },
  (table) => [primaryKey({ columns: [table.apiKeyId, table.day, table.route] })],
);
