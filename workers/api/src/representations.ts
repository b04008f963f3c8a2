import { readFieldOption } from "./domain/crm/field-options";
import { readField } from "./domain/crm/fields";
import { readObjectType } from "./domain/crm/object-types";
import { readComment } from "./domain/inbox/comments";
import { readTag } from "./domain/inbox/tags";
import { readInboxView } from "./domain/inbox/views";
import type { ServiceContext } from "./env";

/**
 * The representation of each resource the catalogue versions without a single-resource GET (the
 * `resource` its writes declare), by path template: the resource as its writes answer it, read now
 * with the checks of a read, and its version (`updatedAt`, which `If-Match` pins a change to). The
 * representation's hash is the resource's `ETag` (`conditional-requests.ts`), so this is the one
 * definition of what `If-Match` compares.
 */
export type Representation = (
  context: ServiceContext,
  params: Record<string, string>,
) => Promise<{ body: object; updatedAt: number }>;

const param = (params: Record<string, string>, name: string) => params[name] as string;

/** A resource that shows its own `updatedAt`, wrapped in its key. */
const shown = <Resource extends { updatedAt: number }>(key: string, resource: Resource) => ({
  body: { [key]: resource },
  updatedAt: resource.updatedAt,
});

export const representations: Record<string, Representation> = {
  "/crm/objects/{objectTypeId}": async (context, params) =>
    shown("object", await readObjectType(context, param(params, "objectTypeId"))),
  "/crm/fields/{fieldDefinitionId}": async (context, params) =>
    shown("field", await readField(context, param(params, "fieldDefinitionId"))),
  "/crm/fields/{fieldDefinitionId}/options/{fieldOptionId}": async (context, params) => {
    const { option, updatedAt } = await readFieldOption(
      context,
      param(params, "fieldDefinitionId"),
      param(params, "fieldOptionId"),
    );
    return { body: { option }, updatedAt };
  },
  "/inbox/views/{inboxViewId}": async (context, params) =>
    shown("view", await readInboxView(context, param(params, "inboxViewId"))),
  "/inbox/comments/{commentId}": async (context, params) =>
    shown("comment", await readComment(context, param(params, "commentId"))),
  "/inbox/tags/{tagId}": async (context, params) => shown("tag", await readTag(context, param(params, "tagId"))),
};
