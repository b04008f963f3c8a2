import type { operations } from "@crm/contracts";
import { newId, regional } from "@crm/db";
import { requireWorkspaceRole } from "../../domain/crm/resources";
import {
  checkObjectTypeIds,
  safeUrl,
  signingSecretShownOnce,
  type WebhookRow,
  webhookResponse,
} from "../../domain/webhooks/resources";
import { newWebhookSecret } from "../../domain/webhooks/signing";
import type { OperationHandler } from "../../handler";
import { keepSecretsFromReplay } from "../../idempotency";

export const createWebhook: OperationHandler<typeof operations.createWebhook> = async (c) => {
  const input = c.req.valid("json");
  const { db, actor } = c.var;
  await requireWorkspaceRole(db, actor, input.workspaceId, "admin");
  await checkObjectTypeIds(db, input.workspaceId, input.objectTypeIds ?? []);
  const now = Date.now();
  const row: WebhookRow = {
    id: newId("whk", now),
    workspaceId: input.workspaceId,
    url: safeUrl(input.url, c.env),
    eventTypes: [...new Set(input.eventTypes)],
    objectTypeIds: [...new Set(input.objectTypeIds ?? [])],
    description: input.description ?? null,
    isActive: true,
    disabledReason: null,
    secret: newWebhookSecret(),
    previousSecret: null,
    previousSecretExpiresAt: null,
    createdBy: actor.actor.id,
    createdAt: now,
    updatedAt: now,
  };
  await db.insert(regional.webhooks).values(row);
  keepSecretsFromReplay(c, signingSecretShownOnce(row.id));
  return c.json({ webhook: webhookResponse(row), secret: row.secret }, 201);
};
