import { ApiError, type operations } from "@crm/contracts";
import { regional } from "@crm/db";
import { and, eq, max } from "drizzle-orm";
import { runBatch } from "../../batch";
import { customObjectType, objectTypeStatements } from "../../domain/crm/blueprints";
import { objectTypeResponse, requireWorkspaceRole } from "../../domain/crm/resources";
import type { OperationHandler } from "../../handler";

const { objectTypes } = regional;

/** `Vendor Contacts` → `vendor_contacts`; a name without letters gets a generic slug. */
export function slugFrom(name: string): string {
  const slug = name
    .normalize("NFKD")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^[^a-z]+|_+$/g, "")
    .slice(0, 63);
  return slug || "custom";
}

export const createObjectType: OperationHandler<typeof operations.createObjectType> = async (c) => {
  const input = c.req.valid("json");
  const { db, actor } = c.var;
  await requireWorkspaceRole(db, actor, input.workspaceId, "admin");
  const slug = input.slug ?? slugFrom(input.namePlural);
  const [[taken], [last]] = await Promise.all([
    db
      .select({ id: objectTypes.id })
      .from(objectTypes)
      .where(and(eq(objectTypes.workspaceId, input.workspaceId), eq(objectTypes.slug, slug))),
    db
      .select({ position: max(objectTypes.position) })
      .from(objectTypes)
      .where(eq(objectTypes.workspaceId, input.workspaceId)),
  ]);
  if (taken) throw new ApiError("conflict", `An object type with the slug "${slug}" exists in this workspace`, { slug });
  const now = Date.now();
  const blueprint = customObjectType({
    slug,
    nameSingular: input.nameSingular,
    namePlural: input.namePlural,
    ...(input.icon ? { icon: input.icon } : {}),
    ...(input.color ? { color: input.color } : {}),
  });
  const { objectTypeId, statements } = objectTypeStatements(db, blueprint, {
    workspaceId: input.workspaceId,
    position: (last?.position ?? -1) + 1,
    createdBy: actor.actor.id,
    now,
    objectTypeIds: new Map(),
  });
  await runBatch(db, statements);
  const [created] = await db.select().from(objectTypes).where(eq(objectTypes.id, objectTypeId));
  if (!created) throw new Error("object type vanished after creation");
  return c.json({ object: objectTypeResponse(created) }, 201);
};
