// Writes the regional Workers' local wrangler files (workers/api/wrangler.<region>.jsonc) from the one
// template, for commands that read them directly (`pnpm build:regions`).
import { writeRegionalConfigs } from "./lib/databases.mjs";

writeRegionalConfigs();
