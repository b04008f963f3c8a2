import {
  type DomainEvent,
  type EventData,
  type EventResource,
  type EventType,
  eventTextLimit,
  type Message,
  maxEventBytes,
} from "@crm/contracts";
import { jsonBytes } from "./webhooks/queue-batches";

/**
 * Events stay small (DESIGN.md section 10, issue 24): a message event names the message and never
 * carries its body or attachments, a note's or task's text is cut to `eventTextLimit` characters, and
 * no event is larger than `maxEventBytes` as JSON. Enforced here, where every event is built, so no
 * producer can put an oversized row in the outbox (one such row once stopped a shard's outbox).
 */

/** The first `length` characters, never half of a surrogate pair (the cut would not be well-formed Unicode). */
function cut(text: string, length: number): string {
  if (text.length <= length) return text;
  const end = length > 0 && /[\ud800-\udbff]/.test(text.charAt(length - 1)) ? length - 1 : length;
  return text.slice(0, end);
}

const snippetLength = 200;

function messageEvent(message: Message): EventData["message.received"] {
  return {
    id: message.id,
    conversationId: message.conversationId,
    workspaceId: message.workspaceId,
    direction: message.direction,
    from: message.from,
    to: message.to,
    cc: message.cc,
    subject: message.subject,
    snippet: cut(message.text.replace(/\s+/g, " ").trim(), snippetLength),
    sentAtMs: message.sentAtMs,
    messageId: message.messageId,
    inReplyTo: message.inReplyTo,
    attachmentCount: message.attachments.length,
  };
}

/** A note's or task's text fields cut to `eventTextLimit` characters, and whether any was. */
function withTextCut<Resource extends object>(resource: Resource, fields: (keyof Resource & string)[]) {
  const copy: Record<string, unknown> = { ...(resource as Record<string, unknown>) };
  let truncated = false;
  for (const field of fields) {
    const value = copy[field];
    if (typeof value === "string" && value.length > eventTextLimit) {
      copy[field] = cut(value, eventTextLimit);
      truncated = true;
    }
  }
  return { ...(copy as Resource), truncated };
}

/** The data an event of `type` carries, made from the resource its producer hands over. */
export function eventDataOf<Type extends EventType>(type: Type, resource: EventResource[Type]): EventData[Type] {
  const shaped = (data: unknown) => data as EventData[Type];
  if (type === "message.received" || type === "message.sent") return shaped(messageEvent(resource as Message));
  if (type.startsWith("note.") && type !== "note.deleted")
    return shaped(withTextCut(resource as EventResource["note.created"], ["title", "contentHtml", "contentPlain"]));
  if (type.startsWith("task.") && type !== "task.deleted")
    return shaped(withTextCut(resource as EventResource["task.created"], ["title", "descriptionHtml", "descriptionPlain"]));
  return shaped(resource);
}

/**
 * Ever smaller bounds tried in turn on an event that is still over `maxEventBytes`: strings cut to
 * `text` characters (never below 100, so ids, enum values and timestamps keep their shape), lists
 * to `items` elements, objects to `keys` properties (a record's `fields`, which its object type
 * may give a thousand). The bounds only shorten, so the data still matches its published schema.
 */
const bounds = [
  { text: 2_000, items: 500, keys: 1_000 },
  { text: 500, items: 100, keys: 1_000 },
  { text: 100, items: 20, keys: 200 },
  { text: 100, items: 0, keys: 50 },
] as const;

type Bound = (typeof bounds)[number];

function bounded(value: unknown, bound: Bound): unknown {
  if (typeof value === "string") return cut(value, bound.text);
  if (Array.isArray(value)) return value.slice(0, bound.items).map((item) => bounded(item, bound));
  if (value !== null && typeof value === "object")
    return Object.fromEntries(
      Object.entries(value)
        .slice(0, bound.keys)
        .map(([key, item]) => [key, bounded(item, bound)]),
    );
  return value;
}

/**
 * The event as it goes into the outbox: as built when it fits in `maxEventBytes`, else its data cut
 * by the first bound that makes it fit, and marked `truncated`. The envelope (ids, type, actor) is
 * never cut. An event none of the bounds fits is a defect of the schemas, not of the input: it fails
 * the write rather than stop the outbox (test/event-size.test.ts builds the largest of every type).
 */
export function boundedEvent(event: DomainEvent): DomainEvent {
  if (jsonBytes(event) <= maxEventBytes) return event;
  for (const bound of bounds) {
    const smaller = { ...event, data: { ...(bounded(event.data, bound) as object), truncated: true } };
    if (jsonBytes(smaller) <= maxEventBytes) return smaller;
  }
  throw new Error(`A ${event.type} event does not fit in ${maxEventBytes} bytes however its data is cut`);
}
