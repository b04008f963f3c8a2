import { ApiError, type operations } from "@crm/contracts";
import { regional } from "@crm/db";
import { eq } from "drizzle-orm";
import { loadObjectType, objectTypeResponse } from "../../domain/crm/resources";
import type { OperationHandler } from "../../handler";

const { objectTypes } = regional;

export const updateObjectType: OperationHandler<typeof operations.updateObjectType> = async (c) => {
  const { objectTypeId } = c.req.valid("param");
  const changes = c.req.valid("json");
  const objectType = await loadObjectType(c.var.db, c.var.actor, objectTypeId, "admin");
  if (objectType.isSystem && changes.isActive === false) {
    throw new ApiError("system_resource", "System object types cannot be deactivated");
  }
  const [updated] = await c.var.db
    .update(objectTypes)
    .set({ ...changes, updatedAt: Date.now() })
    .where(eq(objectTypes.id, objectTypeId))
    .returning();
  if (!updated) throw new ApiError("not_found", "Object type not found");
  return c.json({ object: objectTypeResponse(updated) }, 200);
};
