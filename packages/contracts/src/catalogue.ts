import { documentConditionalRequests } from "./conditional-requests";
import { createApiKey, getApiKey, listApiKeys, replaceApiKey, revokeApiKey } from "./operations/api-keys";
import {
  createField,
  createFieldOption,
  deleteField,
  listFields,
  reorderFields,
  updateField,
  updateFieldOption,
} from "./operations/crm-fields";
import { createObjectType, deleteObjectType, listObjectTypes, updateObjectType } from "./operations/crm-objects";
import { createView, deleteView, getView, listViews, reorderViews, updateView } from "./operations/crm-views";
import { getEvent, listEvents } from "./operations/events";
import {
  createComment,
  createTag,
  deleteComment,
  deleteTag,
  listComments,
  listTags,
  updateComment,
  updateTag,
} from "./operations/inbox-collaboration";
import {
  createComposeDraft,
  deleteComposeDraft,
  getComposeDraft,
  listComposeDrafts,
  sendComposeDraft,
  updateComposeDraft,
} from "./operations/inbox-compose-drafts";
import {
  getConversation,
  listConversationMessages,
  listConversations,
  listRecordConversations,
  updateConversation,
} from "./operations/inbox-conversations";
import { deleteConversationDraft, getConversationDraft, putConversationDraft } from "./operations/inbox-drafts";
import { composeConversation, confirmUnsubscribe, getAttachment, sendMessage, showUnsubscribe } from "./operations/inbox-mail";
import { createInboxView, deleteInboxView, listInboxViews, updateInboxView } from "./operations/inbox-views";
import {
  createConnection,
  deleteConnection,
  listConnections,
  receiveCallingEvent,
  receiveMeetingNotesEvent,
  rotateConnectionSecret,
} from "./operations/integrations";
import { getMeeting, listMeetings } from "./operations/meetings";
import { createNote, deleteNote, getNote, listNotes, updateNote } from "./operations/notes";
import { getChangelog, getIntegration, listIntegrations } from "./operations/public";
import {
  assertRecord,
  createRecord,
  deleteRecord,
  getRecord,
  listRecords,
  queryRecords,
  updateRecord,
} from "./operations/records";
import { batchRecords, searchRecords } from "./operations/records-bulk";
import { createTask, deleteTask, getTask, listRecordTasks, listTasks, updateTask } from "./operations/tasks";
import { getUsage } from "./operations/usage";
import { redeliverWebhookDelivery, replayWebhook, testWebhook } from "./operations/webhook-operations";
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listEventTypes,
  listWebhookDeliveries,
  listWebhooks,
  rotateWebhookSecret,
  updateWebhook,
} from "./operations/webhooks";
import { listWorkspaceMembers, listWorkspaces } from "./operations/workspaces";

/**
 * The route catalogue: every public operation exactly once. The gateway reads scopes, costs and
 * MCP tool names from it, the regional Worker registers its handlers against it, and the OpenAPI
 * document is generated from it. Add a route here and it gets all of those.
 */
export const operations = {
  listWorkspaces,
  listWorkspaceMembers,
  listObjectTypes,
  createObjectType,
  updateObjectType,
  deleteObjectType,
  listFields,
  createField,
  updateField,
  deleteField,
  reorderFields,
  createFieldOption,
  updateFieldOption,
  listViews,
  createView,
  getView,
  updateView,
  deleteView,
  reorderViews,
  createRecord,
  // Before GET /records/{recordId}, which would otherwise take "search" for an id.
  searchRecords,
  batchRecords,
  getRecord,
  updateRecord,
  deleteRecord,
  listRecords,
  queryRecords,
  assertRecord,
  createTask,
  listRecordTasks,
  listTasks,
  getTask,
  updateTask,
  deleteTask,
  createNote,
  listNotes,
  getNote,
  updateNote,
  deleteNote,
  listConversations,
  getConversation,
  updateConversation,
  listRecordConversations,
  listConversationMessages,
  listComments,
  createComment,
  updateComment,
  deleteComment,
  listTags,
  createTag,
  updateTag,
  deleteTag,
  putConversationDraft,
  getConversationDraft,
  deleteConversationDraft,
  createComposeDraft,
  listComposeDrafts,
  getComposeDraft,
  updateComposeDraft,
  deleteComposeDraft,
  sendComposeDraft,
  listInboxViews,
  createInboxView,
  updateInboxView,
  deleteInboxView,
  // Before GET /webhooks/{webhookId}, which would otherwise take "event-types" for an id.
  listEventTypes,
  createWebhook,
  listWebhooks,
  getWebhook,
  updateWebhook,
  deleteWebhook,
  rotateWebhookSecret,
  listWebhookDeliveries,
  testWebhook,
  redeliverWebhookDelivery,
  replayWebhook,
  listEvents,
  getEvent,
  listMeetings,
  getMeeting,
  createConnection,
  listConnections,
  deleteConnection,
  rotateConnectionSecret,
  receiveMeetingNotesEvent,
  receiveCallingEvent,
  composeConversation,
  sendMessage,
  getAttachment,
  showUnsubscribe,
  confirmUnsubscribe,
  getUsage,
  listApiKeys,
  createApiKey,
  getApiKey,
  revokeApiKey,
  replaceApiKey,
  listIntegrations,
  getIntegration,
  getChangelog,
} as const;

export type OperationId = keyof typeof operations;

export const catalogue = Object.values(operations);
documentConditionalRequests(catalogue);

type OperationIdServedBy<S> = { [Id in OperationId]: (typeof operations)[Id]["servedBy"] extends S ? Id : never }[OperationId];
/** Operations whose handlers run in the regional Worker. */
export type RegionalOperationId = OperationIdServedBy<"region">;
/** Operations on control-plane data, served by the gateway itself. */
export type GatewayOperationId = Exclude<OperationIdServedBy<"gateway">, SignedOperationId>;
/** Signed inbound webhooks: the gateway routes them to the connection's region, which verifies and serves them. */
export type SignedOperationId = {
  [Id in OperationId]: (typeof operations)[Id]["auth"] extends "signature" ? Id : never;
}[OperationId];

/** Routes the reference names as removed: they answer 410 `route_removed`. */
export const removedRoutes = [{ method: "GET", path: "/record-email-attachment-download" }] as const;
