import { ApiError, type operations } from "@crm/contracts";
import { newId, regional } from "@crm/db";
import { and, asc, eq, inArray, like } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { loadInWorkspace, reachWorkspace } from "../../access";
import {
  changeWithoutLoss,
  compareAndSet,
  maxAttempts,
  nextUpdatedAt,
  runBatchAtVersion,
  runConditionalBatch,
} from "../../conditional-write";
import type { Database } from "../../database";
import type { ServiceContext } from "../../env";
import type { BodyOf, QueryOf } from "../../inputs";
import { paginate } from "../../pagination";

const { conversationTags, inboxTags, inboxViews } = regional;
type TagRow = typeof inboxTags.$inferSelect;

export const tagResponse = (row: TagRow) => ({
  id: row.id,
  workspaceId: row.workspaceId,
  name: row.name,
  color: row.color,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
});

/** What makes two tag names the same: case. */
const nameKeyOf = (name: string) => name.toLowerCase();

const taken = (name: string) => new ApiError("conflict", `A tag named "${name}" exists in this workspace`, { field: "name" });

/**
 * A friendly 409 for a name in use; two concurrent requests for one name both pass it, and the
 * unique index refuses the second, which the error hook answers as 409 `conflict` too.
 */
async function assertNameFree(db: Database, workspaceId: string, name: string, exceptId?: string) {
  const [holder] = await db
    .select({ id: inboxTags.id })
    .from(inboxTags)
    .where(and(eq(inboxTags.workspaceId, workspaceId), eq(inboxTags.nameKey, nameKeyOf(name))))
    .limit(1);
  if (holder && holder.id !== exceptId) throw taken(name);
}

const loadTag = ({ db, actor }: ServiceContext, id: string, role?: "member" | "admin") =>
  loadInWorkspace(db, actor, inboxTags, id, { what: "Tag", role });

export async function listTagsOf({ db, actor, cursorSecret }: ServiceContext, query: QueryOf<typeof operations.listTags>) {
  const { workspaceId, limit, cursor } = query;
  await reachWorkspace(db, actor, workspaceId, { what: "Workspace" });
  const page = await paginate<TagRow>(
    {
      scope: `tags:${workspaceId}`,
      limit,
      cursor,
      order: [
        { column: inboxTags.nameKey, direction: "asc", valueIn: (row) => row.nameKey },
        { column: inboxTags.id, direction: "asc", valueIn: (row) => row.id },
      ],
      fetch: ({ after, orderBy, limit: fetchLimit }) =>
        db
          .select()
          .from(inboxTags)
          .where(and(eq(inboxTags.workspaceId, workspaceId), after))
          .orderBy(...orderBy)
          .limit(fetchLimit),
    },
    cursorSecret,
  );
  return { data: page.data.map(tagResponse), pagination: page.pagination };
}

export async function createTagIn({ db, actor }: ServiceContext, input: BodyOf<typeof operations.createTag>) {
  await reachWorkspace(db, actor, input.workspaceId, { what: "Workspace", role: "member" });
  await assertNameFree(db, input.workspaceId, input.name);
  const now = Date.now();
  const row: TagRow = {
    id: newId("tag", now),
    workspaceId: input.workspaceId,
    name: input.name,
    nameKey: nameKeyOf(input.name),
    color: input.color,
    createdAt: now,
    updatedAt: now,
  };
  await db.insert(inboxTags).values(row);
  return tagResponse(row);
}

/** A tag as its writes answer it. */
export const readTag = async (context: ServiceContext, tagId: string) => tagResponse(await loadTag(context, tagId));

/** Changes a tag's named properties, conditionally (`changeWithoutLoss`). */
export async function updateTagOf(context: ServiceContext, tagId: string, changes: BodyOf<typeof operations.updateTag>) {
  const { db } = context;
  return changeWithoutLoss(context, {
    what: "Tag",
    named: Object.keys(changes),
    read: () => loadTag(context, tagId, "member"),
    shown: tagResponse,
    write: async (tag) => {
      if (changes.name !== undefined) await assertNameFree(db, tag.workspaceId, changes.name, tag.id);
      const columns = {
        ...(changes.name === undefined ? {} : { name: changes.name, nameKey: nameKeyOf(changes.name) }),
        ...(changes.color === undefined ? {} : { color: changes.color }),
      };
      const updatedAt = nextUpdatedAt(tag);
      await runConditionalBatch(db, inboxTags, tag, columns, updatedAt);
      return tagResponse({ ...tag, ...columns, updatedAt });
    },
  });
}

/**
 * Deletes a tag with everything that names it, in one batch: its place on conversations and in the
 * filter of the workspace's inbox views (found by the id in their config, then rewritten). Each view
 * is rewritten only while it is as read (`compareAndSet`): when a view PATCH landed in between, the
 * deletion is planned again from the view as it is now, so the PATCH is never undone.
 */
export async function deleteTagOf(context: ServiceContext, tagId: string): Promise<void> {
  const { db } = context;
  const tag = await loadTag(context, tagId, "admin");
  const namingViews = and(eq(inboxViews.workspaceId, tag.workspaceId), like(inboxViews.config, `%${tag.id}%`));
  for (let attempt = 1; ; attempt++) {
    const views = await db
      .select({ id: inboxViews.id, config: inboxViews.config, updatedAt: inboxViews.updatedAt })
      .from(inboxViews)
      .where(namingViews);
    const statements: BatchItem<"sqlite">[] = [db.delete(conversationTags).where(eq(conversationTags.tagId, tag.id))];
    for (const view of views) {
      const { tagIds, ...filter } = view.config.filter;
      const remaining = (tagIds ?? []).filter((id) => id !== tag.id);
      const config = { ...view.config, filter: remaining.length > 0 ? { ...filter, tagIds: remaining } : filter };
      statements.push(...compareAndSet(db, inboxViews, view, { config }, nextUpdatedAt(view)));
    }
    statements.push(db.delete(inboxTags).where(eq(inboxTags.id, tag.id)));
    try {
      await runBatchAtVersion(context, inboxTags, tag.id, statements);
      return;
    } catch (error) {
      const now = await db.select({ id: inboxViews.id, updatedAt: inboxViews.updatedAt }).from(inboxViews).where(namingViews);
      const moved =
        now.length !== views.length ||
        now.some((view) => views.find((read) => read.id === view.id)?.updatedAt !== view.updatedAt);
      if (!moved || attempt === maxAttempts) throw error;
    }
  }
}

/** The ids among `tagIds` that are not tags of the workspace, as problems naming their position under `path`. */
export async function notTags(db: Database, workspaceId: string, tagIds: string[], path: string) {
  if (tagIds.length === 0) return [];
  const found = await db
    .select({ id: inboxTags.id })
    .from(inboxTags)
    .where(and(eq(inboxTags.workspaceId, workspaceId), inArray(inboxTags.id, tagIds)));
  const known = new Set(found.map((row) => row.id));
  return tagIds.flatMap((id, i) => (known.has(id) ? [] : [{ path: `${path}.${i}`, message: "Not a tag of the workspace" }]));
}

/** Tags must be tags of the workspace: 400 otherwise. */
export async function checkTags(db: Database, workspaceId: string, tagIds: string[], path: string): Promise<void> {
  const problems = await notTags(db, workspaceId, tagIds, path);
  if (problems.length > 0) throw new ApiError("invalid_request", "Tags must be tags of the workspace", problems);
}

/** The tags of some conversations, by name: `{ id, name, color }` as conversations show them. */
export async function tagsOfConversations(db: Database, conversationIds: string[]) {
  const rows = await db
    .select({ conversationId: conversationTags.conversationId, id: inboxTags.id, name: inboxTags.name, color: inboxTags.color })
    .from(conversationTags)
    .innerJoin(inboxTags, eq(inboxTags.id, conversationTags.tagId))
    .where(inArray(conversationTags.conversationId, conversationIds))
    .orderBy(asc(inboxTags.nameKey), asc(inboxTags.id));
  return rows;
}
