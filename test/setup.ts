import { applyD1Migrations, env } from "cloudflare:test";

// Storage is shared by the test files of a run; migrations and the seed are both idempotent.
await applyD1Migrations(env.CONTROL_DB, env.CONTROL_MIGRATIONS);
await applyD1Migrations(env.US_DB, env.REGIONAL_MIGRATIONS);
await applyD1Migrations(env.EU_DB, env.REGIONAL_MIGRATIONS);
