import type { operations, RegionalOperationId } from "@crm/contracts";
import type { OperationHandler } from "./handler";
import { createField } from "./routes/crm/create-field";
import { createFieldOption } from "./routes/crm/create-field-option";
import { createObjectType } from "./routes/crm/create-object-type";
import { createView } from "./routes/crm/create-view";
import { deleteField } from "./routes/crm/delete-field";
import { deleteObjectType } from "./routes/crm/delete-object-type";
import { deleteView } from "./routes/crm/delete-view";
import { getView } from "./routes/crm/get-view";
import { listFields } from "./routes/crm/list-fields";
import { listObjectTypes } from "./routes/crm/list-object-types";
import { listViews } from "./routes/crm/list-views";
import { reorderFields } from "./routes/crm/reorder-fields";
import { reorderViews } from "./routes/crm/reorder-views";
import { updateField } from "./routes/crm/update-field";
import { updateFieldOption } from "./routes/crm/update-field-option";
import { updateObjectType } from "./routes/crm/update-object-type";
import { updateView } from "./routes/crm/update-view";
import { getEvent } from "./routes/events/get-event";
import { listEvents } from "./routes/events/list-events";
import { composeConversation } from "./routes/inbox/compose-conversation";
import { createComment } from "./routes/inbox/create-comment";
import { createComposeDraft } from "./routes/inbox/create-compose-draft";
import { createInboxView } from "./routes/inbox/create-inbox-view";
import { createTag } from "./routes/inbox/create-tag";
import { deleteComment } from "./routes/inbox/delete-comment";
import { deleteComposeDraft } from "./routes/inbox/delete-compose-draft";
import { deleteConversationDraft } from "./routes/inbox/delete-conversation-draft";
import { deleteInboxView } from "./routes/inbox/delete-inbox-view";
import { deleteTag } from "./routes/inbox/delete-tag";
import { getAttachment } from "./routes/inbox/get-attachment";
import { getComposeDraft } from "./routes/inbox/get-compose-draft";
import { getConversation } from "./routes/inbox/get-conversation";
import { getConversationDraft } from "./routes/inbox/get-conversation-draft";
import { listComments } from "./routes/inbox/list-comments";
import { listComposeDrafts } from "./routes/inbox/list-compose-drafts";
import { listConversationMessages } from "./routes/inbox/list-conversation-messages";
import { listConversations } from "./routes/inbox/list-conversations";
import { listInboxViews } from "./routes/inbox/list-inbox-views";
import { listRecordConversations } from "./routes/inbox/list-record-conversations";
import { listTags } from "./routes/inbox/list-tags";
import { putConversationDraft } from "./routes/inbox/put-conversation-draft";
import { sendComposeDraft } from "./routes/inbox/send-compose-draft";
import { sendMessage } from "./routes/inbox/send-message";
import { updateComment } from "./routes/inbox/update-comment";
import { updateComposeDraft } from "./routes/inbox/update-compose-draft";
import { updateConversation } from "./routes/inbox/update-conversation";
import { updateInboxView } from "./routes/inbox/update-inbox-view";
import { updateTag } from "./routes/inbox/update-tag";
import { createConnection } from "./routes/integrations/create-connection";
import { deleteConnection } from "./routes/integrations/delete-connection";
import { listConnections } from "./routes/integrations/list-connections";
import { rotateConnectionSecret } from "./routes/integrations/rotate-connection-secret";
import { getMeeting } from "./routes/meetings/get-meeting";
import { listMeetings } from "./routes/meetings/list-meetings";
import { createNote } from "./routes/notes/create-note";
import { deleteNote } from "./routes/notes/delete-note";
import { getNote } from "./routes/notes/get-note";
import { listNotes } from "./routes/notes/list-notes";
import { updateNote } from "./routes/notes/update-note";
import { assertRecord } from "./routes/records/assert-record";
import { batchRecords } from "./routes/records/batch-records";
import { createRecord } from "./routes/records/create-record";
import { deleteRecord } from "./routes/records/delete-record";
import { getRecord } from "./routes/records/get-record";
import { listRecords } from "./routes/records/list-records";
import { queryRecords } from "./routes/records/query-records";
import { searchRecords } from "./routes/records/search-records";
import { updateRecord } from "./routes/records/update-record";
import { createTask } from "./routes/tasks/create-task";
import { deleteTask } from "./routes/tasks/delete-task";
import { getTask } from "./routes/tasks/get-task";
import { listRecordTasks } from "./routes/tasks/list-record-tasks";
import { listTasks } from "./routes/tasks/list-tasks";
import { updateTask } from "./routes/tasks/update-task";
import { createWebhook } from "./routes/webhooks/create-webhook";
import { deleteWebhook } from "./routes/webhooks/delete-webhook";
import { getWebhook } from "./routes/webhooks/get-webhook";
import { listEventTypes } from "./routes/webhooks/list-event-types";
import { listWebhookDeliveries } from "./routes/webhooks/list-webhook-deliveries";
import { listWebhooks } from "./routes/webhooks/list-webhooks";
import { redeliverWebhookDelivery } from "./routes/webhooks/redeliver-webhook-delivery";
import { replayWebhook } from "./routes/webhooks/replay-webhook";
import { rotateWebhookSecret } from "./routes/webhooks/rotate-webhook-secret";
import { testWebhook } from "./routes/webhooks/test-webhook";
import { updateWebhook } from "./routes/webhooks/update-webhook";
import { listWorkspaceMembers } from "./routes/workspaces/list-workspace-members";
import { listWorkspaces } from "./routes/workspaces/list-workspaces";

/** Every regional catalogue operation has exactly one handler here; the type makes a missing one a compile error. */
export const handlers: { [Id in RegionalOperationId]: OperationHandler<(typeof operations)[Id]> } = {
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
  composeConversation,
  sendMessage,
  getAttachment,
};
