import { drizzle } from "drizzle-orm/d1";
import { createApp } from "./app";
import type { RegionEnv } from "./env";
import { purgeExpiredIdempotencyKeys } from "./idempotency";

const app = createApp();

export default {
  fetch: app.fetch,
  async scheduled(_controller, env) {
    await purgeExpiredIdempotencyKeys(drizzle(env.DB));
  },
} satisfies ExportedHandler<RegionEnv>;
