import { webhookSettings } from "../../config";

/** Seconds before each retry (DESIGN.md section 10): 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h. */
export const retrySchedule = [5, 300, 1800, 7200, 18_000, 36_000, 50_400, 72_000, 86_400];

export const scheduleOf = (env: object) => webhookSettings(env).retrySchedule ?? retrySchedule;

/** ±10% jitter, so that deliveries failing together do not retry together. */
export const jittered = (seconds: number) => Math.round(seconds * (0.9 + Math.random() * 0.2));
