import { z } from "@hono/zod-openapi";
import { deletedSchema, emptyBodySchema, idSchema, pathId, timestampMs } from "../ids";
import { costUnits, defineOperation, jsonBody, jsonResponse } from "../operation";
import { listResponse, pageQuery, queryInteger } from "../pagination";
import { personSchema } from "../people";
import { label, outputText } from "../strings";

export const taskStatuses = ["todo", "in_progress", "done"] as const;

const html = z.string().max(100_000).openapi({ description: "Up to 100 000 characters" });

export const taskSchema = z
  .object({
    id: idSchema("task"),
    workspaceId: idSchema("ws"),
    title: outputText(),
    status: z.enum(taskStatuses),
    createdAt: timestampMs,
    updatedAt: timestampMs,
    recordId: idSchema("rec"),
    descriptionHtml: outputText(100_000).openapi({ description: "Sanitized HTML" }),
    descriptionPlain: outputText(100_000),
    dueAt: timestampMs.nullable(),
    assigneeUserIds: z.array(idSchema("usr")).max(50),
    assignees: z
      .array(personSchema)
      .max(50)
      .openapi({ description: "The assignees as the workspace's members directory shows them, in `assigneeUserIds` order" }),
    linkedResources: z
      .array(
        z.object({
          resourceType: outputText(32),
          resourceId: idSchema("conv"),
          label: outputText(),
          channel: outputText(32),
        }),
      )
      .max(50),
    source: z
      .object({ resourceType: outputText(32), resourceId: idSchema("mtg") })
      .nullable()
      .openapi({
        description:
          "Set for source-managed tasks (e.g. meeting action items): title, descriptions, due date and status are read-only, and the task cannot be deleted",
      }),
    createdBy: outputText(73).openapi({ description: "Id of the actor that created it" }),
  })
  .openapi("Task");

const taskResponse = z.object({ task: taskSchema });
const recordParams = z.object({ recordId: pathId("recordId", "rec") });
const taskParams = z.object({ taskId: pathId("taskId", "task") });

const htmlNote =
  "`descriptionHtml` is parsed as a browser parses it and kept to an allowlist: formatting elements, http(s) and mailto links, http(s) images and six plain style properties; scripts, event handlers, SVG and MathML are dropped. HTML whose parsed tree would exceed 50 000 elements or 512 levels is 400. `descriptionPlain` is derived from it when not given.";

export const createTask = defineOperation({
  operationId: "createTask",
  tag: "Tasks",
  summary: "Create a task on a record",
  description: `Status \`todo\` unless given. Assignees must be members of the workspace; \`conversationId\` links a conversation of the same workspace in \`linkedResources\`. ${htmlNote} Members and above.`,
  scope: "tasks:write",
  costUnits: costUnits.write,
  mcpTool: "tasks_create",
  method: "post",
  path: "/records/{recordId}/tasks",
  request: {
    params: recordParams,
    body: jsonBody(
      z
        .object({
          title: label(),
          descriptionHtml: html.optional(),
          descriptionPlain: html.optional(),
          dueAt: timestampMs.nullable().optional(),
          status: z.enum(taskStatuses).optional(),
          assigneeUserIds: z.array(idSchema("usr")).max(50).optional(),
          conversationId: idSchema("conv").optional(),
        })
        .strict()
        .openapi("CreateTask", {
          example: { title: "Send the proposal" },
        }),
    ),
  },
  responses: { 201: jsonResponse("The created task", taskResponse) },
});

export const listRecordTasks = defineOperation({
  operationId: "listRecordTasks",
  tag: "Tasks",
  summary: "List the tasks of a record",
  description: "Oldest first; deleted tasks never appear.",
  scope: "tasks:read",
  costUnits: costUnits.read,
  mcpTool: "tasks_list_for_record",
  method: "get",
  path: "/records/{recordId}/tasks",
  request: {
    params: recordParams,
    query: z
      .object({
        ...pageQuery,
        status: z
          .enum(taskStatuses)
          .optional()
          .openapi({ param: { name: "status", in: "query" } }),
      })
      .strict(),
  },
  responses: { 200: jsonResponse("A page of tasks", listResponse(taskSchema)) },
});

export const listTasks = defineOperation({
  operationId: "listTasks",
  tag: "Tasks",
  summary: "List the tasks of a workspace",
  description:
    "Oldest first; filter by assignee, status and due date (`dueBeforeMs`: due strictly before). Deleted tasks never appear.",
  scope: "tasks:read",
  costUnits: costUnits.read,
  mcpTool: "tasks_list",
  method: "get",
  path: "/tasks",
  request: {
    query: z
      .object({
        workspaceId: idSchema("ws").openapi({ param: { name: "workspaceId", in: "query" } }),
        assigneeUserId: idSchema("usr")
          .optional()
          .openapi({ param: { name: "assigneeUserId", in: "query" } }),
        status: z
          .enum(taskStatuses)
          .optional()
          .openapi({ param: { name: "status", in: "query" } }),
        dueBeforeMs: queryInteger("dueBeforeMs", 0, 8_640_000_000_000_000)
          .optional()
          .openapi({ description: "Only tasks due strictly before this time (Unix ms)." }),
        ...pageQuery,
      })
      .strict(),
  },
  responses: { 200: jsonResponse("A page of tasks", listResponse(taskSchema)) },
});

export const getTask = defineOperation({
  operationId: "getTask",
  tag: "Tasks",
  summary: "Get a task",
  description: "A task that is not deleted, with its assignees, links and source.",
  scope: "tasks:read",
  costUnits: costUnits.read,
  mcpTool: "tasks_get",
  singleResource: true,
  method: "get",
  path: "/tasks/{taskId}",
  request: { params: taskParams },
  responses: { 200: jsonResponse("The task", taskResponse) },
});

export const updateTask = defineOperation({
  operationId: "updateTask",
  tag: "Tasks",
  summary: "Update a task",
  description: `A source-managed task keeps its title, descriptions, due date and status (409 \`source_managed_task\`); its assignees may change. ${htmlNote} Members and above.`,
  scope: "tasks:write",
  costUnits: costUnits.write,
  mcpTool: "tasks_update",
  method: "patch",
  path: "/tasks/{taskId}",
  errors: ["source_managed_task"],
  request: {
    params: taskParams,
    body: jsonBody(
      z
        .object({
          title: label().optional(),
          descriptionHtml: html.optional(),
          descriptionPlain: html.optional(),
          dueAt: timestampMs.nullable().optional(),
          status: z.enum(taskStatuses).optional(),
          assigneeUserIds: z.array(idSchema("usr")).max(50).optional(),
        })
        .strict()
        .openapi("UpdateTask", { example: { status: "done" } }),
    ),
  },
  responses: { 200: jsonResponse("The updated task", taskResponse) },
});

export const deleteTask = defineOperation({
  operationId: "deleteTask",
  tag: "Tasks",
  summary: "Delete a task",
  description:
    "Soft delete: excluded from every list and read, and not restorable through the API. Source-managed tasks: 409 `source_managed_task`. Members and above.",
  scope: "tasks:write",
  costUnits: costUnits.write,
  mcpTool: "tasks_delete",
  method: "delete",
  path: "/tasks/{taskId}",
  errors: ["source_managed_task"],
  request: { params: taskParams, body: jsonBody(emptyBodySchema, false) },
  responses: { 200: jsonResponse("The id of the deleted task", deletedSchema) },
});
