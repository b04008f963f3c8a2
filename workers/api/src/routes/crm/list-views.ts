import type { operations } from "@crm/contracts";
import { regional } from "@crm/db";
import { and, eq } from "drizzle-orm";
import { loadObjectType, viewResponse } from "../../domain/crm/resources";
import type { OperationHandler } from "../../handler";
import { paginate } from "../../pagination";

const { recordViews } = regional;

export const listViews: OperationHandler<typeof operations.listViews> = async (c) => {
  const { objectTypeId } = c.req.valid("param");
  const { limit, cursor } = c.req.valid("query");
  const { db, actor } = c.var;
  await loadObjectType(db, actor, objectTypeId);
  type View = typeof recordViews.$inferSelect;
  const page = await paginate<View>(
    {
      scope: `views:${objectTypeId}`,
      limit,
      cursor,
      order: [
        { column: recordViews.position, direction: "asc", valueIn: (view) => view.position },
        { column: recordViews.id, direction: "asc", valueIn: (view) => view.id },
      ],
      fetch: ({ after, orderBy, limit }) =>
        db
          .select()
          .from(recordViews)
          .where(and(eq(recordViews.objectTypeId, objectTypeId), after))
          .orderBy(...orderBy)
          .limit(limit),
    },
    c.env.CURSOR_SECRET,
  );
  return c.json({ data: page.data.map(viewResponse), pagination: page.pagination }, 200);
};
