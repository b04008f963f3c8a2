import { ApiError, newWebhookSecret, type operations } from "@crm/contracts";
import { newId, regional } from "@crm/db";
import { and, eq, sql } from "drizzle-orm";
import { loadInWorkspace, reachWorkspace } from "../../access";
import type { ResponseSecrets, ServiceContext } from "../../env";
import type { BodyOf, QueryOf } from "../../inputs";
import { creationOrder, paginate } from "../../pagination";

const { integrationConnections } = regional;
export type ConnectionRow = typeof integrationConnections.$inferSelect;

/** After a rotation the previous secret still verifies for a day, so the provider can switch without a gap. */
const previousSecretValidMs = 24 * 60 * 60 * 1000;

/** The `{provider}` segment of a calling connection's inbound URL: its name, lower-cased, as a path segment. */
export const callingProviderSlug = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 32) || "provider";

/** The public URL a provider posts to, under the API's `{base_url}` as the gateway reports it. */
function inboundUrl(baseUrl: string, row: ConnectionRow): string {
  if (row.provider === "meeting_notes") return `${baseUrl}/integrations/meeting-notes/webhooks/${row.id}`;
  return `${baseUrl}/calling/webhooks/${callingProviderSlug(row.name)}/${row.id}`;
}

export const connectionResponse = (row: ConnectionRow, baseUrl: string) => ({
  id: row.id,
  workspaceId: row.workspaceId,
  provider: row.provider,
  name: row.name,
  inboundUrl: inboundUrl(baseUrl, row),
  createdAt: row.createdAt,
  secretRotatedAt: row.secretRotatedAt,
});

/** A connection's secret is shown once: a replay of the request answers it null with this notice. */
export const connectionSecretShownOnce = (connectionId: string): ResponseSecrets => ({
  properties: ["secret"],
  notice: `The signing secret is shown once, in the first response to this request. POST /integrations/connections/${connectionId}/rotate-secret issues a new one.`,
});

/** Connections are managed and read by admins and owners only (DESIGN.md section 9). */
const loadConnection = ({ db, actor }: ServiceContext, id: string) =>
  loadInWorkspace(db, actor, integrationConnections, id, { what: "Connection", role: "admin" });

export async function createConnectionIn(
  { db, actor }: ServiceContext,
  input: BodyOf<typeof operations.createConnection>,
): Promise<ConnectionRow> {
  await reachWorkspace(db, actor, input.workspaceId, { what: "Workspace", role: "admin" });
  const now = Date.now();
  const row: ConnectionRow = {
    id: newId("conn", now),
    workspaceId: input.workspaceId,
    provider: input.provider,
    name: input.name,
    secret: newWebhookSecret(),
    previousSecret: null,
    previousSecretExpiresAt: null,
    secretRotatedAt: null,
    createdBy: actor.actor.id,
    createdAt: now,
  };
  await db.insert(integrationConnections).values(row);
  return row;
}

export async function listConnectionsOf(
  { db, actor, cursorSecret }: ServiceContext,
  { workspaceId, limit, cursor }: QueryOf<typeof operations.listConnections>,
) {
  await reachWorkspace(db, actor, workspaceId, { what: "Workspace", role: "admin" });
  return paginate<ConnectionRow>(
    {
      scope: `connections:${workspaceId}`,
      limit,
      cursor,
      order: creationOrder(integrationConnections),
      fetch: ({ after, orderBy, limit }) =>
        db
          .select()
          .from(integrationConnections)
          .where(and(eq(integrationConnections.workspaceId, workspaceId), after))
          .orderBy(...orderBy)
          .limit(limit),
    },
    cursorSecret,
  );
}

export async function deleteConnectionOf(context: ServiceContext, connectionId: string): Promise<void> {
  await loadConnection(context, connectionId);
  await context.db.delete(integrationConnections).where(eq(integrationConnections.id, connectionId));
}

/** A new secret in one statement that moves the stored one to `previousSecret`, never written back from an earlier read. */
export async function rotateConnectionSecretOf(context: ServiceContext, connectionId: string): Promise<ConnectionRow> {
  await loadConnection(context, connectionId);
  const now = Date.now();
  const [rotated] = await context.db
    .update(integrationConnections)
    .set({
      secret: newWebhookSecret(),
      previousSecret: sql`${integrationConnections.secret}`,
      previousSecretExpiresAt: now + previousSecretValidMs,
      secretRotatedAt: now,
    })
    .where(eq(integrationConnections.id, connectionId))
    .returning();
  if (!rotated) throw new ApiError("not_found", "Connection not found");
  return rotated;
}
