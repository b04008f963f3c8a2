import { OpenAPIHono } from "@hono/zod-openapi";
import { catalogue, operations } from "./catalogue";
import { type EventType, eventDescriptions, eventTypes, typedEventSchemas } from "./events";
import type { openApiDocument } from "./openapi";
import type { Operation } from "./operation";
import { documentJsonSchema, type JsonSchema, operationArguments } from "./operation-json-schemas";
import type { Integration } from "./operations/public";

/**
 * The published integrations of `GET /public/integrations/crm` (DESIGN.md section 12). What they
 * expose is read from the route catalogue and the event definitions, never restated: the automation
 * platform's triggers are the event types with the JSON Schema of each event as delivered, its
 * actions the public write operations with the JSON Schema of their input, both taken from the
 * OpenAPI document the gateway serves.
 */

type OpenApiDocument = ReturnType<typeof openApiDocument>;

/** `meeting.transcript_ready` → `Meeting transcript ready`. */
const triggerName = (type: EventType) => {
  const words = type.replace(/[._]/g, " ");
  return `${words.charAt(0).toUpperCase()}${words.slice(1)}`;
};

/** `meeting.transcript_ready` → `MeetingTranscriptReadyEvent`, the event's name among the schemas. */
const eventComponent = (type: EventType) =>
  `${type
    .split(/[._]/)
    .map((word) => `${word.charAt(0).toUpperCase()}${word.slice(1)}`)
    .join("")}Event`;

/** Published schemas say which JSON Schema they are written in. */
const dialect = (schema: JsonSchema): JsonSchema => ({ $schema: "https://json-schema.org/draft/2020-12/schema", ...schema });

/** Each event as delivered (the envelope with its type's `data`), generated as the document's schemas are. */
function eventJsonSchemas(): Map<EventType, JsonSchema> {
  const generator = new OpenAPIHono();
  for (const type of eventTypes) {
    const delivered = typedEventSchemas[type];
    generator.openAPIRegistry.register(eventComponent(type), delivered);
  }
  const document = generator.getOpenAPI31Document({ openapi: "3.1.0", info: { title: "Events", version: "1" } });
  const components = document.components?.schemas as Record<string, JsonSchema>;
  // The event itself at the root; the resources it carries (Record, Task, …) in `$defs`.
  return new Map(
    eventTypes.map((type) => [type, dialect(documentJsonSchema(document, components[eventComponent(type)] as JsonSchema))]),
  );
}

function triggers(): Integration["triggers"] {
  const schemas = eventJsonSchemas();
  return eventTypes.map((type) => ({
    key: type,
    name: triggerName(type),
    description: eventDescriptions[type],
    payloadSchema: schemas.get(type) as JsonSchema,
  }));
}

/** The public write operations, each taking its arguments as its MCP tool does: path, query and body properties in one object. */
function actions(document: OpenApiDocument): Integration["actions"] {
  return catalogue
    .filter((operation) => operation.auth === "bearer" && operation.method !== "get")
    .map((operation) => ({
      key: operation.operationId,
      // defineOperation requires both.
      name: operation.route.summary as string,
      description: operation.route.description as string,
      method: operation.method.toUpperCase() as Integration["actions"][number]["method"],
      path: operation.path,
      scope: operation.scope,
      inputSchema: dialect(operationArguments(document, operation).schema),
    }));
}

/** A small square logo as an SVG `data:` URL: served with the entry, so it needs no host of its own. */
const logo = (drawing: string, color: string) =>
  `data:image/svg+xml,${encodeURIComponent(
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="14" fill="${color}"/><g fill="none" stroke="#fff" stroke-width="4" stroke-linecap="round" stroke-linejoin="round">${drawing}</g></svg>`,
  )}`;

/** When an integration became available: the date of the change-log release that published it. */
const releasedOn = (date: string) => Date.parse(`${date}T00:00:00Z`);

/** The docs page's anchor of the group an operation is in (`#tag/<slug of its tag>`, as the API reference page names them). */
const referenceAnchor = (operation: Operation) => `#tag/${operation.tag.toLowerCase().replaceAll(" ", "-")}`;

/** The published integrations, for the gateway at `origin` whose OpenAPI document is `document`. */
export function publishedIntegrations(origin: string, document: OpenApiDocument): Integration[] {
  const reference = `${origin}/api/v1/docs`;
  return [
    {
      slug: "automation-platform",
      name: "Automation platform",
      tagline: "Start workflows on CRM and inbox events, and write back to the CRM",
      description:
        "Connect the CRM to an automation platform with an API key or an OAuth app. Its 14 instant triggers are webhook subscriptions (`POST /webhooks`) to one event type each, delivered within seconds and signed as Standard Webhooks; its actions are the API's write operations, run with the credential's scopes and limits.",
      categories: ["automation", "webhooks"],
      logoUrl: logo('<path d="M36 10 18 36h14l-4 18 18-26H32z"/>', "#f97316"),
      docsUrl: `${reference}${referenceAnchor(operations.createWebhook)}`,
      publishedAt: releasedOn("2026-11-23"),
      triggers: triggers(),
      actions: actions(document),
    },
    {
      slug: "meeting-notes",
      name: "Meeting notes",
      tagline: "Meetings, participants, recordings and transcripts from your meeting-notes tool",
      description:
        "An admin connects the tool to a workspace (`POST /integrations/connections` with `provider: meeting_notes`) and gives it the connection's inbound URL and signing secret. The tool posts signed events; meetings are kept with their participants, participants are matched to people records by e-mail, and transcript action items become tasks on those records.",
      categories: ["meetings", "productivity"],
      logoUrl: logo('<rect x="16" y="12" width="32" height="40" rx="4"/><path d="M24 24h16M24 32h16M24 40h10"/>', "#7c3aed"),
      docsUrl: `${reference}${referenceAnchor(operations.receiveMeetingNotesEvent)}`,
      publishedAt: releasedOn("2026-11-23"),
      triggers: [],
      actions: [],
    },
    {
      slug: "calling",
      name: "Calling",
      tagline: "Calls from your phone system, with status, duration and recording",
      description:
        "An admin connects the calling provider to a workspace (`POST /integrations/connections` with `provider: calling`). The provider posts signed call events (`call.started`, `call.ended`, `call.recording_ready`) to the connection's inbound URL; each call is kept as a meeting with its status, duration and recording.",
      categories: ["calling", "telephony"],
      logoUrl: logo(
        '<path d="M22 14h-6a4 4 0 0 0-4 4c0 19 15 34 34 34a4 4 0 0 0 4-4v-6l-9-4-5 5c-6-3-11-8-14-14l5-5z"/>',
        "#0891b2",
      ),
      docsUrl: `${reference}${referenceAnchor(operations.receiveCallingEvent)}`,
      publishedAt: releasedOn("2026-11-23"),
      triggers: [],
      actions: [],
    },
    {
      slug: "mcp",
      name: "AI assistants (MCP)",
      tagline: "Let an AI assistant read and update the CRM and the inbox, within your permissions",
      description: `Add \`${origin}/mcp\` as a remote MCP server (Streamable HTTP) in any MCP client. It signs in with OAuth (dynamic client registration, PKCE) or an API key, and gets one tool per API operation, under the same scopes, rate limits and token costs as the API; sending mail asks for confirmation first.`,
      categories: ["ai", "assistants"],
      logoUrl: logo(
        '<circle cx="20" cy="32" r="6"/><circle cx="44" cy="20" r="6"/><circle cx="44" cy="44" r="6"/><path d="M26 29l12-6M26 35l12 6"/>',
        "#2563eb",
      ),
      docsUrl: reference,
      publishedAt: releasedOn("2026-11-23"),
      triggers: [],
      actions: [],
    },
  ];
}
