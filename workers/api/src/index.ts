import { createApp } from "./app";
import { regionalWorker } from "./worker";

export { WebhookBurst } from "./domain/webhooks/burst";
export { WebhookEndpoint } from "./domain/webhooks/endpoint-lane";

/** The production entry: no development route is imported, so none is bundled (`local.ts` is the local stack's). */
export default regionalWorker(createApp());
