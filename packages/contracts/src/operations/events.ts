import { z } from "@hono/zod-openapi";
import { eventTypes, typedEventSchema } from "../events";
import { idSchema, pathId } from "../ids";
import { costUnits, defineOperation, jsonResponse } from "../operation";
import { pageQuery, paginationSchema, queryInteger } from "../pagination";

/** How long events are kept: the feed serves, and a replay resends, at most this far back. */
export const eventRetentionMs = 30 * 24 * 60 * 60 * 1000;

const accessNote =
  "Members whose inbox access is `record_read` or `record_reply` do not see the events of conversations that are not linked to a record (`conversation.created`, `message.received`, `message.sent`), as they do not see those conversations; in `task.created` and `task.updated` events they see `linkedResources` as the task routes show them, without links to those conversations.";

/** `types=record.created,task.updated`: one or more of the 14 event types, comma-separated. */
const typesQuery = z
  .string()
  .max(500)
  .transform((value) => value.split(","))
  .pipe(z.array(z.enum(eventTypes)).min(1).max(eventTypes.length))
  .openapi({
    param: { name: "types", in: "query" },
    type: "string",
    maxLength: 500,
    description: "Only events of these types, comma-separated (e.g. `record.created,record.updated`)",
    example: "record.created,record.updated",
  });

export const listEvents = defineOperation({
  operationId: "listEvents",
  tag: "Events",
  summary: "List events",
  description: `The events of a workspace, oldest first in the order they were written, exactly as webhooks deliver them; kept 30 days. Without \`cursor\` the list starts 30 days back, at \`sinceMs\`, or just after \`afterEventId\` (the last event a client saw, to catch up from it); \`pagination.cursor\` continues from the last event served (\`sinceMs\` or \`afterEventId\` may stay in the query beside it), and events written while a client pages appear after it, never before: paging to the end misses none and repeats none. On the last page \`cursor\` is null: catch up later with \`afterEventId\` set to the last event's id. ${accessNote}`,
  scope: "events:read",
  costUnits: costUnits.read,
  mcpTool: "events_list",
  method: "get",
  path: "/events",
  request: {
    query: z
      .object({
        workspaceId: idSchema("ws").openapi({ param: { name: "workspaceId", in: "query" } }),
        types: typesQuery.optional(),
        objectTypeId: idSchema("obj")
          .optional()
          .openapi({ param: { name: "objectTypeId", in: "query" }, description: "Only events of this object type" }),
        sinceMs: queryInteger("sinceMs", 0, 8_640_000_000_000_000)
          .optional()
          .openapi({ description: "Start at events written at or after this time (Unix ms); at most 30 days back" }),
        afterEventId: idSchema("evt")
          .optional()
          .openapi({ param: { name: "afterEventId", in: "query" }, description: "Start just after this event of the workspace" }),
        ...pageQuery,
      })
      .strict(),
  },
  responses: {
    200: jsonResponse("A page of events", z.object({ data: z.array(typedEventSchema).max(100), pagination: paginationSchema })),
  },
});

export const getEvent = defineOperation({
  operationId: "getEvent",
  tag: "Events",
  summary: "Get an event",
  description: `One event of the last 30 days, exactly as webhooks deliver it. ${accessNote}`,
  scope: "events:read",
  costUnits: costUnits.read,
  mcpTool: "events_get",
  method: "get",
  path: "/events/{eventId}",
  request: { params: z.object({ eventId: pathId("eventId", "evt") }) },
  responses: { 200: jsonResponse("The event", z.object({ event: typedEventSchema })) },
});
