import type { OperationId, operations } from "@crm/contracts";
import type { OperationHandler } from "./handler";
import { listWorkspaces } from "./routes/workspaces/list-workspaces";

/** Every catalogue operation has exactly one handler here; the type makes a missing one a compile error. */
export const handlers: { [Id in OperationId]: OperationHandler<(typeof operations)[Id]> } = {
  listWorkspaces,
};
