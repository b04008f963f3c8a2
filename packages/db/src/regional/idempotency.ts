import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** Idempotency records, scoped to organization + credential + key, kept 24 h (DESIGN.md section 5). */
export const idempotencyKeys = sqliteTable(
  "idempotency_keys",
  {
    organizationId: text("organization_id").notNull(),
    credentialId: text("credential_id").notNull(),
    key: text("key").notNull(),
    requestHash: text("request_hash").notNull(),
    /** The id of the request that claimed the key: a replay names it in `Original-Request-Id`. */
    requestId: text("request_id"),
    state: text("state", { enum: ["in_flight", "completed"] }).notNull(),
    responseStatus: integer("response_status"),
    responseBody: text("response_body"),
    /** The token cost units the region reported for a response whose cost varies (a records batch); null for the others. */
    responseCostUnits: integer("response_cost_units"),
    /** An in-flight claim older than this is taken to be abandoned (the Worker died mid-request). */
    lockedUntil: integer("locked_until").notNull(),
    expiresAt: integer("expires_at").notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.organizationId, table.credentialId, table.key] }),
    index("idempotency_keys_expiry").on(table.expiresAt),
  ],
);
