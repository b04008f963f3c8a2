import {
  type InboundMailClaims,
  internalRequestHeader,
  logUnexpectedError,
  sha256Hex,
  signInternalRequest,
} from "@crm/contracts";
import { control } from "@crm/db";
import { eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { contextSecret, type GatewayEnv, regionService } from "../env";

/** Email Routing's own limit; a larger message is refused before it is read. */
const maxMessageBytes = 25 * 1024 * 1024;

/** One line per refused message: who it was for, its size and why — never its content. */
function logRejection(message: ForwardableEmailMessage, reason: string) {
  console.warn(JSON.stringify({ event: "inbound_mail_rejected", to: message.to, size: message.rawSize, reason }));
}

function reject(message: ForwardableEmailMessage, reason: string) {
  logRejection(message, reason);
  message.setReject(reason);
}

/** The reason a region gave for refusing a message (its error envelope), or a neutral one. */
async function refusalReason(response: Response): Promise<string> {
  if (response.status >= 500) return "Temporary failure while storing the message";
  try {
    const body = (await response.json()) as { error?: { message?: string } };
    return body.error?.message ?? "Message refused";
  } catch {
    return "Message refused";
  }
}

/** The envelope's `MAIL FROM:<>` (RFC 5321 section 4.5.5): bounces and other reports of the mail system. */
const isNullReversePath = (from: string) => from.trim() === "" || from.trim() === "<>";

/**
 * The gateway's `email()` handler (Email Routing delivers every address of the domain here): finds
 * the recipient's mailbox in the control D1, hands the raw message to its organization's region over
 * the service binding with a token signed for those bytes, and turns any refusal — unknown mailbox,
 * oversized, unparsable — into `setReject` with the reason. It never throws: a failure is a rejection.
 */
export async function receiveEmail(message: ForwardableEmailMessage, env: GatewayEnv): Promise<void> {
  try {
    if (message.rawSize > maxMessageBytes) return reject(message, "Message too large (the limit is 25 MiB)");
    const mailbox = message.to.trim().toLowerCase();
    const [route] = await drizzle(env.CONTROL_DB)
      .select({ region: control.organizations.region, shard: control.organizations.shard })
      .from(control.mailboxes)
      .innerJoin(control.organizations, eq(control.organizations.id, control.mailboxes.organizationId))
      .where(eq(control.mailboxes.address, mailbox))
      .limit(1);
    if (!route) return reject(message, "Unknown mailbox");
    const raw = await new Response(message.raw).arrayBuffer();
    if (raw.byteLength > maxMessageBytes) return reject(message, "Message too large (the limit is 25 MiB)");
    const claims: InboundMailClaims = {
      purpose: "inbound-mail",
      shard: route.shard,
      mailbox,
      digest: await sha256Hex(raw),
      nullSender: isNullReversePath(message.from),
      issuedAt: Date.now(),
    };
    const response = await regionService(env, route.region).fetch(
      `https://api.${route.region}.internal/__internal/mail/inbound`,
      {
        method: "POST",
        headers: {
          "content-type": "message/rfc822",
          [internalRequestHeader]: await signInternalRequest(claims, contextSecret(env, route.region)),
        },
        body: raw,
      },
    );
    if (!response.ok) reject(message, await refusalReason(response));
  } catch (error) {
    logUnexpectedError(error, { operation: "inbound mail hand-over" });
    message.setReject("Temporary failure while storing the message");
  }
}
