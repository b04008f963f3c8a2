import type { operations } from "@crm/contracts";
import { connectionResponse, connectionSecretShownOnce, createConnectionIn } from "../../domain/meetings/connections";
import type { OperationHandler } from "../../handler";
import { keepSecretsFromReplay } from "../../idempotency";
import { publicBaseUrl } from "./public-base-url";

export const createConnection: OperationHandler<typeof operations.createConnection> = async (c) => {
  const row = await createConnectionIn(c.var, c.req.valid("json"));
  keepSecretsFromReplay(c, connectionSecretShownOnce(row.id));
  return c.json({ connection: connectionResponse(row, publicBaseUrl(c)), secret: row.secret }, 201);
};
