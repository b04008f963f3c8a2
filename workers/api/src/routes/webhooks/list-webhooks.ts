import type { operations } from "@crm/contracts";
import { regional } from "@crm/db";
import { and, eq } from "drizzle-orm";
import { requireWorkspaceRole } from "../../domain/crm/resources";
import { type WebhookRow, webhookResponse } from "../../domain/webhooks/resources";
import type { OperationHandler } from "../../handler";
import { creationOrder, paginate } from "../../pagination";

const { webhooks } = regional;

export const listWebhooks: OperationHandler<typeof operations.listWebhooks> = async (c) => {
  const { workspaceId, limit, cursor } = c.req.valid("query");
  const { db, actor } = c.var;
  await requireWorkspaceRole(db, actor, workspaceId, "admin");
  const page = await paginate<WebhookRow>(
    {
      scope: `webhooks:${workspaceId}`,
      limit,
      cursor,
      order: creationOrder(webhooks),
      fetch: ({ after, orderBy, limit }) =>
        db
          .select()
          .from(webhooks)
          .where(and(eq(webhooks.workspaceId, workspaceId), after))
          .orderBy(...orderBy)
          .limit(limit),
    },
    c.env.CURSOR_SECRET,
  );
  return c.json({ data: page.data.map(webhookResponse), pagination: page.pagination }, 200);
};
