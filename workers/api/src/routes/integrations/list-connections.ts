import type { operations } from "@crm/contracts";
import { connectionResponse, listConnectionsOf } from "../../domain/meetings/connections";
import type { OperationHandler } from "../../handler";
import { publicBaseUrl } from "./public-base-url";

export const listConnections: OperationHandler<typeof operations.listConnections> = async (c) => {
  const rows = await listConnectionsOf(c.var, c.req.valid("query"));
  return c.json({ data: rows.map((row) => connectionResponse(row, publicBaseUrl(c))) }, 200);
};
