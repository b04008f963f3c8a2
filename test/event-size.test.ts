import {
  type EventResource,
  type EventType,
  eventDataSchemas,
  eventSchema,
  eventTextLimit,
  eventTypes,
  maxEventBytes,
  messageSchema,
} from "@crm/contracts";
import { describe, expect, it } from "vitest";
import { boundedEvent, eventDataOf } from "../workers/api/src/domain/event-data";
import { jsonBytes } from "../workers/api/src/domain/webhooks/queue-batches";

/**
 * Small events (DESIGN.md section 10, issue 24): every event type built from the largest resource its
 * schema allows stays within 64 KB as JSON and still matches the schema the integrations catalogue
 * publishes; message events never carry a body, notes and tasks carry their text cut to 8 000
 * characters and say so.
 */

interface Check {
  check: string;
  maximum?: number;
  value?: number;
  pattern?: RegExp;
}
interface Definition {
  type: string;
  checks?: { _zod: { def: Check } }[];
  innerType?: Schema;
  element?: Schema;
  shape?: Record<string, Schema>;
  entries?: Record<string, string>;
  values?: unknown[];
  in?: Schema;
}
/** A zod schema as its definition describes it (the test walks it). */
interface Schema {
  _zod: { def: Definition };
}

/** A character that costs six bytes in JSON (`\u0001`): the worst a string can weigh, character for character. */
const heaviest = "\u0001";
/** An object type has at most 1 000 fields, each slug up to 63 characters; values here of 2 000 three-byte characters. */
const largestFields = () =>
  Object.fromEntries(
    Array.from({ length: 1_000 }, (_, i) => [`f${String(i).padStart(4, "0")}${"x".repeat(58)}`, "€".repeat(2_000)]),
  );

/** The largest value a schema accepts: every string at its longest, every list at its fullest, every optional present. */
function largest(schema: Schema): unknown {
  const definition = schema._zod.def;
  const checks = (definition.checks ?? []).map((check) => check._zod.def);
  const maximum = checks.find((check) => check.check === "max_length")?.maximum;
  switch (definition.type) {
    case "string": {
      const pattern = checks.find((check) => check.pattern)?.pattern;
      // An id: the longest the id pattern allows.
      if (pattern) return `abcdefgh_${"0".repeat(Math.min(64, (maximum ?? 73) - 9))}`;
      return heaviest.repeat(maximum ?? 10_000);
    }
    case "number":
      return checks.find((check) => check.check === "less_than")?.value ?? 8_640_000_000_000_000;
    case "boolean":
      return true;
    case "enum":
      return Object.values(definition.entries ?? {}).sort((a, b) => b.length - a.length)[0];
    case "literal":
      return definition.values?.[0];
    case "nullable":
    case "optional":
    case "default":
      return largest(definition.innerType as Schema);
    case "pipe":
      return largest(definition.in as Schema);
    case "array":
      return Array.from({ length: maximum ?? 1_000 }, () => largest(definition.element as Schema));
    case "object":
      return Object.fromEntries(Object.entries(definition.shape ?? {}).map(([key, value]) => [key, largest(value)]));
    case "record":
      return largestFields();
    case "unknown":
      return heaviest.repeat(10_000);
    default:
      throw new Error(`no largest value for a ${definition.type} schema`);
  }
}

/** What a producer hands over for each type: the resource (a whole message for message events). */
const resourceSchema = (type: EventType) =>
  (type === "message.received" || type === "message.sent" ? messageSchema : eventDataSchemas[type]) as unknown as Schema;

const build = <Type extends EventType>(type: Type, resource: EventResource[Type]) =>
  boundedEvent({
    id: "evt_01jd5q0m4x8r2w3y6z7a9b",
    type,
    createdAt: Date.now(),
    organizationId: "org_01jd5q0m4x8r2w3y6z7a9b",
    workspaceId: "ws_01jd5q0m4x8r2w3y6z7a9b",
    actor: { type: "user", id: "usr_01jd5q0m4x8r2w3y6z7a9b" },
    data: eventDataOf(type, resource),
  });

describe("events stay small", () => {
  for (const type of eventTypes) {
    it(`${type}: the largest resource its schema allows makes an event of at most 64 KB that matches the published schema`, () => {
      const resource = largest(resourceSchema(type)) as EventResource[typeof type];
      const event = build(type, resource);
      expect(jsonBytes(event)).toBeLessThanOrEqual(maxEventBytes);
      expect(event.type).toBe(type);
      expect(eventSchema.extend({ data: eventDataSchemas[type] }).safeParse(event).error).toBeUndefined();
    });
  }

  it("a message event names the message, its addresses, subject and snippet, never its body or attachments", () => {
    const message = largest(messageSchema as unknown as Schema) as EventResource["message.received"];
    const event = build("message.received", {
      ...message,
      text: "Hello  there,\n\nthe newsletter",
      html: "<p>x</p>".repeat(60_000),
    });
    expect(event.data).not.toHaveProperty("html");
    expect(event.data).not.toHaveProperty("text");
    expect(event.data).not.toHaveProperty("attachments");
    expect(event.data).toMatchObject({ id: message.id, snippet: "Hello there, the newsletter", attachmentCount: 100 });
  });

  it("a note's and a task's text are cut to 8 000 characters and marked; short ones are whole and marked not cut", () => {
    const note = largest(eventDataSchemas["note.created"] as unknown as Schema) as EventResource["note.created"];
    const long = build("note.created", {
      ...note,
      title: "Call notes",
      contentPlain: "a".repeat(100_000),
      contentHtml: "<p>short</p>",
    });
    expect(long.data).toMatchObject({ title: "Call notes", contentHtml: "<p>short</p>", truncated: true });
    expect((long.data as { contentPlain: string }).contentPlain).toHaveLength(eventTextLimit);
    const task = largest(eventDataSchemas["task.created"] as unknown as Schema) as EventResource["task.created"];
    const short = build("task.created", {
      ...task,
      title: "Follow up",
      descriptionHtml: "<p>Soon</p>",
      descriptionPlain: "Soon",
      assigneeUserIds: [],
      linkedResources: [],
    });
    expect(short.data).toMatchObject({ title: "Follow up", descriptionPlain: "Soon", truncated: false });
  });
});
