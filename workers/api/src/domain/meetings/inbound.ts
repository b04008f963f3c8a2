import {
  ApiError,
  callingEventSchema,
  meetingNotesEventSchema,
  type ProviderEvent,
  providerEnvelopeSchema,
  type SignedHeaders,
  uniqueViolation,
  validationHook,
  verifySignature,
} from "@crm/contracts";
import { regional, runBatch } from "@crm/db";
import { and, eq } from "drizzle-orm";
import type { Database } from "../../database";
import { applyProviderEvent, type DeliveringConnection } from "./apply-event";

const { integrationConnections, inboundDeliveries, workspaces } = regional;

/** A delivery to one of the inbound routes, as the region receives it from the gateway. */
export interface InboundDelivery {
  /** The route it came in on: a meeting-notes connection's, or a calling connection's. */
  provider: "meeting_notes" | "calling";
  connectionId: string;
  /** The organization the gateway routed it for (the connection's, by the control plane's map). */
  organizationId: string;
  headers: SignedHeaders;
  body: ArrayBuffer;
}

const schemas = { meeting_notes: meetingNotesEventSchema, calling: callingEventSchema } as const;
const knownTypes = {
  meeting_notes: new Set<string>(meetingNotesEventSchema.options.map((option) => option.shape.type.value)),
  calling: new Set<string>(callingEventSchema.options.map((option) => option.shape.type.value)),
};

/** The connection and its organization; unknown, deleted, of another organization or of the other kind: 404. */
async function loadConnection(db: Database, delivery: InboundDelivery) {
  const [found] = await db
    .select({ connection: integrationConnections, organizationId: workspaces.organizationId })
    .from(integrationConnections)
    .innerJoin(workspaces, eq(workspaces.id, integrationConnections.workspaceId))
    .where(eq(integrationConnections.id, delivery.connectionId))
    .limit(1);
  if (!found || found.organizationId !== delivery.organizationId || found.connection.provider !== delivery.provider)
    throw new ApiError("not_found", "Connection not found");
  return found;
}

function parseJson(body: ArrayBuffer): unknown {
  try {
    return JSON.parse(new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(body));
  } catch {
    throw new ApiError("invalid_request", "The body is not JSON");
  }
}

const alreadyReceived = async (db: Database, connectionId: string, webhookId: string) =>
  (
    await db
      .select({ webhookId: inboundDeliveries.webhookId })
      .from(inboundDeliveries)
      .where(and(eq(inboundDeliveries.connectionId, connectionId), eq(inboundDeliveries.webhookId, webhookId)))
      .limit(1)
  ).length > 0;

/**
 * Receives one provider delivery: the connection (404), the signature with its current or, within a
 * day of a rotation, previous secret (401), the body (400), then the event, applied once per
 * `webhook-id`. The delivery's row goes in the same D1 batch as its effects, so a repeat, even one
 * racing the first, finds it (or fails on its primary key) and changes nothing. An event type this
 * version does not know is recorded as `ignored`.
 */
export async function receiveDelivery(db: Database, delivery: InboundDelivery, now = Date.now()): Promise<void> {
  const { connection, organizationId } = await loadConnection(db, delivery);
  const secrets = [connection.secret];
  if (connection.previousSecret && (connection.previousSecretExpiresAt ?? 0) > now) secrets.push(connection.previousSecret);
  const webhookId = await verifySignature(delivery.headers, delivery.body, secrets, now);
  const body = parseJson(delivery.body);
  const envelope = providerEnvelopeSchema.safeParse(body);
  // The same 400 with details as any request body's, and the same refusal of ill-formed Unicode.
  validationHook({ ...envelope, data: body, target: "json" });
  if (!envelope.success) return;
  if (await alreadyReceived(db, connection.id, webhookId)) return;

  const received = {
    connectionId: connection.id,
    webhookId,
    eventType: envelope.data.type,
    occurredAt: envelope.data.occurredAt,
    receivedAt: now,
  };
  if (!knownTypes[delivery.provider].has(envelope.data.type)) {
    await db
      .insert(inboundDeliveries)
      .values({ ...received, outcome: "ignored" })
      .onConflictDoNothing();
    return;
  }
  const parsed = schemas[delivery.provider].safeParse(body);
  validationHook({ ...parsed, data: body, target: "json" });
  if (!parsed.success) return;
  const event: ProviderEvent = parsed.data;
  const deliveringConnection: DeliveringConnection = { id: connection.id, workspaceId: connection.workspaceId, organizationId };

  // Two attempts: a concurrent delivery of another event can create the same meeting or action item first.
  for (let attempt = 0; ; attempt++) {
    const applied = await applyProviderEvent(db, deliveringConnection, event, now);
    try {
      await runBatch(db, [
        db.insert(inboundDeliveries).values({ ...received, outcome: applied.outcome === "applied" ? "applied" : "ignored" }),
        ...applied.statements,
      ]);
      return;
    } catch (error) {
      // A concurrent delivery won a race.
      if (!uniqueViolation(error)) throw error;
      if (await alreadyReceived(db, connection.id, webhookId)) return;
      if (attempt > 0) throw error;
    }
  }
}
