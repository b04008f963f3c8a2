/**
 * Realistic examples for the properties of the OpenAPI document that their zod definitions leave
 * without one (the shared building blocks, ids, timestamps, e-mails, give theirs where they are
 * defined). Keyed by property name, as the domain uses one name for one thing (`subject`,
 * `mailbox`), or by `Schema.property` where a name means several things (`Workspace.name`). A
 * property not listed takes its enum's first value, or `false` when it is a boolean. The test over
 * the document (test/openapi-examples.test.ts) fails on any property left without an example, and on
 * any example its own schema refuses.
 */

const personName = "Ada Lovelace";
const when = 1764000000000;

const byProperty: Record<string, unknown> = {
  name: personName,
  title: "Renewal call with Globex",
  description: "Customers who renewed this quarter",
  createdBy: "usr_01jd5q0m4x8r2w3y6z7a9b",
  id: "usr_01jd5q0m4x8r2w3y6z7a9b",
  authorId: "usr_01jd5q0m4x8r2w3y6z7a9b",
  resourceType: "conversation",
  text: "Hi Ada, thanks for the quick reply. The renewal quote is attached.",
  html: "<p>Hi Ada, thanks for the quick reply. The renewal quote is attached.</p>",
  subject: "Renewal quote for 2027",
  snippet: "Hi Ada, thanks for the quick reply. The renewal quote is attached.",
  lastMessageSnippet: "Hi Ada, thanks for the quick reply. The renewal quote is attached.",
  label: "Renewal quote for 2027",
  color: "#3b82f6",
  value: "enterprise",
  defaultValue: "lead",
  timezone: "Europe/London",
  q: "renewal",
  organizerEmail: "ada@acme.example",
  email: "ada@acme.example",
  assigneeEmail: "ada@acme.example",
  attendeeEmails: ["ada@acme.example", "grace@globex.example"],
  order: 0,
  width: 240,
  notice: "The secret is shown once: store it now. A replay of this request shows null in its place.",
  meetingUrl: "https://meet.example.com/abc-defg-hij",
  durationSec: 1800,
  durationMs: 184,
  changedFields: ["stage", "amount"],
  callRecordingId: "rec-7f3a2c91",
  recordingStatus: "available",
  invitationStatus: "accepted",
  descriptionHtml: "<p>Send the signed order form to <strong>Globex</strong>.</p>",
  descriptionPlain: "Send the signed order form to Globex.",
  contentHtml: "<p>Globex wants a two-year term and SSO.</p>",
  contentPlain: "Globex wants a two-year term and SSO.",
  channel: "email",
  botPlannedReason: "The meeting has an external attendee",
  botPlannedAction: "join",
  slug: "customer_tier",
  nameSingular: "Deal",
  namePlural: "Deals",
  icon: "briefcase",
  emoji: "📬",
  messageId: "CAH9x2Ok7d1q@mail.globex.example",
  inReplyTo: "CAH9x2Ok3b8z@mail.acme.example",
  references: ["CAH9x2Ok3b8z@mail.acme.example"],
  mailbox: "support@acme.example",
  handle: "grace@globex.example",
  displayName: "Grace Hopper",
  filename: "quote-2027.pdf",
  contentType: "application/pdf",
  size: 48213,
  attachmentCount: 1,
  fields: { name: "Globex", domain: "globex.example" },
  payloadSchema: { type: "object", properties: { type: { const: "record.created" } }, required: ["type"] },
  inputSchema: {
    type: "object",
    properties: { objectTypeId: { type: "string", maxLength: 73 } },
    required: ["objectTypeId"],
  },
  details: [{ path: "body.fields.email", message: "Expected an e-mail address" }],
  message: "The record is not valid; see details.",
  requestId: "req_01jd5q0m4x8r2w3y6z7a9b",
  error: "Connection refused by the receiver",
  lastFailure: "HTTP 503 from the receiver",
  disabledReason: "gone",
  status: 200,
  responseStatus: 200,
  attempt: 1,
  consecutiveFailures: 0,
  deliveryId: "dlv_01jd5q0m4x8r2w3y6z7a9b",
  index: 0,
  url: "https://hooks.globex.example/crm",
  inboundUrl: "https://api.crm.example/api/v1/integrations/connections/conn_01jd5q0m4x8r2w3y6z7a9b/events",
  logoUrl: "https://api.crm.example/integrations/notetaker.svg",
  docsUrl: "https://docs.crm.example/integrations/notetaker",
  tagline: "Meeting notes and action items, in the record",
  categories: ["meetings", "productivity"],
  summary: "`GET /records/{recordId}/conversations` pages without skipping conversations that move.",
  routes: ["GET /records/{recordId}/conversations"],
  key: "create_record",
  path: "/records",
  method: "POST",
  scope: "crm:records:write",
  ip: "203.0.113.42",
  requests: 1284,
  costUnits: 51360,
  cost: 513.6,
  delivered: 1280,
  failed: 3,
  pending: 1,
  rateLimited: 0,
  queued: 12,
  from: "2026-11-01",
  to: "2026-11-26",
  sinceMs: when,
  startAfterMs: when,
  startBeforeMs: when + 7 * 24 * 60 * 60 * 1000,
  dueBeforeMs: when + 7 * 24 * 60 * 60 * 1000,
  hasMore: true,
  isActive: true,
};

const byOwnerAndProperty: Record<string, unknown> = {
  "Workspace.name": "Sales",
  "Workspace.description": "Pipeline and customer conversations of the sales team",
  "CrmObjectType.name": "Deals",
  "CrmObjectType.slug": "deals",
  "CreateField.value": "enterprise",
  "CreateField.label": "Enterprise",
  "Meeting.description": "Renewal terms and the SSO rollout",
  "ProviderMeetingDetails.description": "Renewal terms and the SSO rollout",
  "CrmFieldDefinition.name": "Customer tier",
  "CrmFieldOption.value": "enterprise",
  "CrmFieldOption.label": "Enterprise",
  "CrmRecordView.name": "Open deals this quarter",
  "InboxView.name": "Unassigned support",
  "Tag.name": "Urgent",
  "Task.title": "Send the signed order form",
  "Note.title": "Call notes: Globex renewal",
  "IntegrationConnection.name": "Notetaker (Sales)",
  "ApiKey.name": "Zapier sync",
  "Integration.name": "Notetaker",
  "Integration.description": "Joins your meetings, writes the notes to the record and turns action items into tasks.",
  "IntegrationTrigger.name": "Record created",
  "IntegrationTrigger.description": "A record was created in a workspace",
  "IntegrationAction.name": "Create a record",
  "IntegrationAction.description": "Creates a record of an object type",
  "EventType.description": "A record was created",
  "Webhook.description": "Sync deals to the data warehouse",
  "MessageAddress.name": "Grace Hopper",
  "MeetingParticipant.name": "Grace Hopper",
  "MeetingParticipant.email": "grace@globex.example",
  "ProviderMeetingDetails.title": "Renewal call with Globex",
};

type Schema = { [keyword: string]: unknown };

const isObject = (value: unknown): value is Schema => value !== null && typeof value === "object" && !Array.isArray(value);

/** A schema that holds a value of its own: no properties, items or branches of its own to give theirs. */
const isLeaf = (schema: Schema) =>
  schema.$ref === undefined && !schema.properties && !schema.anyOf && !schema.oneOf && !schema.allOf && !schema.items;

/** Whether an example for `schema` belongs on it: a leaf, a list of leaves, an object of free-form values. */
function takesExample(schema: Schema): boolean {
  if (schema.example !== undefined || schema.examples !== undefined) return false;
  if (schema.type === "array" && isObject(schema.items)) return isLeaf(schema.items) && schema.items.example === undefined;
  if (schema.type === "object" && !schema.properties) return true;
  return isLeaf(schema);
}

function exampleFor(owner: string | undefined, name: string, schema: Schema): unknown {
  const named = owner === undefined ? undefined : byOwnerAndProperty[`${owner}.${name}`];
  if (named !== undefined) return named;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const items = schema.items as Schema | undefined;
  if (schema.type === "array" && Array.isArray(items?.enum) && !(name in byProperty)) return [items.enum[0]];
  if (schema.const !== undefined) return schema.const;
  if (name in byProperty) return byProperty[name];
  if (schema.type === "boolean") return false;
  return undefined;
}

/** Gives every property of `schema` (and of what it nests) that lacks an example its example. */
function withExamples(schema: unknown, owner: string | undefined): void {
  if (!isObject(schema) || schema.$ref !== undefined) return;
  for (const key of ["anyOf", "oneOf"]) {
    for (const branch of (schema[key] as unknown[] | undefined) ?? []) withExamples(branch, owner);
  }
  withExamples(schema.items, owner);
  withExamples(schema.additionalProperties, owner);
  for (const [name, property] of Object.entries((schema.properties as Record<string, unknown> | undefined) ?? {})) {
    if (!isObject(property)) continue;
    withExamples(property, owner);
    if (!takesExample(property)) continue;
    const example = exampleFor(owner, name, property);
    if (example !== undefined) property.example = example;
  }
}

/**
 * The document with an example on every property its definitions left without one. Parameters are
 * left as they are: the docs page's try-it client sends a parameter's example, and an example
 * `cursor`, `sinceMs` or `Idempotency-Key` would make the first request a client tries fail.
 */
export function withPropertyExamples<D extends { paths?: object; components?: object }>(document: D): D {
  const { paths, components } = document as { paths?: Record<string, Schema>; components?: { schemas?: Schema } };
  for (const [name, schema] of Object.entries(components?.schemas ?? {})) withExamples(schema, name);
  for (const entry of Object.values(paths ?? {})) {
    for (const operation of Object.values(entry)) {
      if (!isObject(operation)) continue;
      const body = (operation.requestBody as { content?: Record<string, { schema?: unknown }> } | undefined)?.content;
      for (const media of Object.values(body ?? {})) withExamples(media.schema, undefined);
      for (const response of Object.values((operation.responses as Record<string, unknown> | undefined) ?? {})) {
        const content = isObject(response) ? (response.content as Record<string, { schema?: unknown }> | undefined) : undefined;
        for (const media of Object.values(content ?? {})) withExamples(media.schema, undefined);
      }
    }
  }
  return document;
}
