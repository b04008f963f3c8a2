import type { operations } from "@crm/contracts";
import { regional } from "@crm/db";
import { and, eq } from "drizzle-orm";
import { fieldResponse, loadObjectType, optionsOf } from "../../domain/crm/resources";
import type { OperationHandler } from "../../handler";
import { paginate } from "../../pagination";

const { fieldDefinitions } = regional;

export const listFields: OperationHandler<typeof operations.listFields> = async (c) => {
  const { objectTypeId } = c.req.valid("param");
  const { limit, cursor } = c.req.valid("query");
  const { db, actor } = c.var;
  await loadObjectType(db, actor, objectTypeId);
  type Field = typeof fieldDefinitions.$inferSelect;
  const page = await paginate<Field>(
    {
      scope: `fields:${objectTypeId}`,
      limit,
      cursor,
      order: [
        { column: fieldDefinitions.position, direction: "asc", valueIn: (field) => field.position },
        { column: fieldDefinitions.id, direction: "asc", valueIn: (field) => field.id },
      ],
      fetch: ({ after, orderBy, limit }) =>
        db
          .select()
          .from(fieldDefinitions)
          .where(and(eq(fieldDefinitions.objectTypeId, objectTypeId), after))
          .orderBy(...orderBy)
          .limit(limit),
    },
    c.env.CURSOR_SECRET,
  );
  const options = await optionsOf(
    db,
    page.data.map((field) => field.id),
  );
  const data = page.data.map((field) =>
    fieldResponse(
      field,
      options.filter((option) => option.fieldDefinitionId === field.id),
    ),
  );
  return c.json({ data, pagination: page.pagination }, 200);
};
