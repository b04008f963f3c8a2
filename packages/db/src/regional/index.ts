/** Data plane: one D1 per region. An organization's data lives only in its region's database; one file per domain. */

export * from "./crm";
export * from "./idempotency";
export * from "./inbox";
export * from "./inbox-collaboration";
export * from "./meetings";
export * from "./records";
export * from "./tasks-notes";
export * from "./webhooks";
export * from "./workspaces";
