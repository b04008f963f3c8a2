import type { operations } from "@crm/contracts";
import { connectionResponse, connectionSecretShownOnce, rotateConnectionSecretOf } from "../../domain/meetings/connections";
import type { OperationHandler } from "../../handler";
import { keepSecretsFromReplay } from "../../idempotency";
import { publicBaseUrl } from "./public-base-url";

export const rotateConnectionSecret: OperationHandler<typeof operations.rotateConnectionSecret> = async (c) => {
  const { connectionId } = c.req.valid("param");
  const row = await rotateConnectionSecretOf(c.var, connectionId);
  keepSecretsFromReplay(c, connectionSecretShownOnce(connectionId));
  return c.json({ connection: connectionResponse(row, publicBaseUrl(c)), secret: row.secret }, 200);
};
