import { ApiError, type Operation } from "@crm/contracts";
import type { Actor } from "./actor";
import { insufficientScope } from "./credential-errors";
import type { OperationRequest } from "./operation-call";
import type { OrganizationChoice } from "./organization-memberships";

export const organizationHeader = "x-service-organization-id";

const organizationMismatch = () =>
  new ApiError("organization_mismatch", "X-Service-Organization-Id names an organization this credential cannot act in");

/**
 * The organization a user credential that is not bound to one (an OAuth token without `org`, a
 * console session) acts in, DESIGN.md section 3: the one requested (`X-Service-Organization-Id`), which
 * must be one of the user's (400 `organization_mismatch` otherwise, whether or not it exists, so the
 * answer tells nothing about other organizations); else the session's chosen one; else the user's
 * only organization; else 400 `organization_required` listing the user's organizations
 * (`details: [{ id, name }]`).
 */
export function selectOrganization(
  choices: readonly OrganizationChoice[],
  requested: string | null,
  preferred: string | null,
): OrganizationChoice {
  const wanted = requested ?? preferred;
  if (wanted !== null) {
    const chosen = choices.find((choice) => choice.id === wanted);
    if (chosen) return chosen;
    if (requested !== null) throw organizationMismatch();
  }
  const [only, ...others] = choices;
  if (only && others.length === 0) return only;
  throw new ApiError(
    "organization_required",
    "You belong to several organizations: name one in X-Service-Organization-Id",
    choices.map(({ id, name }) => ({ id, name })),
  );
}

/**
 * What the credential may do with this operation, decided before any rate-limit window is charged:
 * the organization the request names (`X-Service-Organization-Id` must be the actor's, once the
 * credential's organization is settled) and the operation's scope. Workspace access and roles are
 * the region's to decide, where the data is.
 */
export function authorize(operation: Operation, actor: Actor, request: OperationRequest): void {
  const requestedOrganization = request.headers.get(organizationHeader);
  if (requestedOrganization !== null && requestedOrganization !== actor.organizationId) throw organizationMismatch();
  if (operation.scope && !actor.scopes.includes(operation.scope)) throw insufficientScope(operation.scope);
}
