import type { operations, RegionalOperationId } from "@crm/contracts";
import type { OperationHandler } from "./handler";
import { listWorkspaces } from "./routes/workspaces/list-workspaces";

/** Every regional catalogue operation has exactly one handler here; the type makes a missing one a compile error. */
export const handlers: { [Id in RegionalOperationId]: OperationHandler<(typeof operations)[Id]> } = {
  listWorkspaces,
};
