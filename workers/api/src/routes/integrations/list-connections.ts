import type { operations } from "@crm/contracts";
import { connectionResponse, listConnectionsOf } from "../../domain/meetings/connections";
import type { OperationHandler } from "../../handler";
import { publicBaseUrl } from "./public-base-url";

export const listConnections: OperationHandler<typeof operations.listConnections> = async (c) => {
  const { data, pagination } = await listConnectionsOf(c.var, c.req.valid("query"));
  return c.json({ data: data.map((row) => connectionResponse(row, publicBaseUrl(c))), pagination }, 200);
};
