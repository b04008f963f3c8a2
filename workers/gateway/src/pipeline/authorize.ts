import { ApiError, type Operation } from "@crm/contracts";
import type { Actor } from "./authenticate";
import { insufficientScope } from "./credential-errors";
import type { OperationRequest } from "./operation-call";

/**
 * What the credential may do with this operation, decided before any rate-limit window is charged:
 * the organization the request selects (`X-Service-Organization-Id`, DESIGN.md section 3) and the
 * operation's scope. Workspace access and roles are the region's to decide, where the data is.
 */
export function authorize(operation: Operation, actor: Actor, request: OperationRequest): void {
  const requestedOrganization = request.headers.get("x-service-organization-id");
  if (requestedOrganization !== null && requestedOrganization !== actor.organizationId) {
    throw new ApiError("organization_mismatch", "X-Service-Organization-Id names another organization than the API key's");
  }
  if (operation.scope && !actor.scopes.includes(operation.scope)) throw insufficientScope(operation.scope);
}
