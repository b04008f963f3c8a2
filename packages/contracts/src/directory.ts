import { type Region, signToken, verifyToken } from "./actor-context";

/**
 * The organization's directory of people, asked of the gateway by a region. Names, addresses,
 * organization roles and agents live in the control D1 only; a region keeps workspace memberships.
 * Whatever a region shows of a person (the members list, assignees) it reads from here when it
 * answers, so there is no copy to fall behind: a changed name shows everywhere on the next read.
 */

/** Under the gateway's `{base_url}`, outside the catalogue (`workers/gateway/src/internal-routes.ts`). */
export const directoryPath = "/api/v1/internal/directory";
const maxAgeMs = 60_000;

export interface DirectoryQuery {
  purpose: "directory";
  region: Region;
  organizationId: string;
  /** Users wanted by id, whether or not they are still in the organization (their role is then null). */
  userIds: string[];
  /** Also every admin and owner of the organization (they reach every workspace). */
  everyAdmin: boolean;
  /** Also the organization's agents. */
  agents: boolean;
  issuedAt: number;
}

export interface DirectoryEntry {
  id: string;
  type: "user" | "agent";
  name: string;
  /** Users' addresses; null for agents. */
  email: string | null;
  /** The user's role in the organization; null for agents and for users no longer in it. */
  organizationRole: "owner" | "admin" | "member" | null;
}

/** A query signed with the region's own context secret: only the gateway (which holds it) answers it. */
export const signDirectoryQuery = (query: Omit<DirectoryQuery, "purpose" | "issuedAt">, secret: string, now = Date.now()) =>
  signToken({ ...query, purpose: "directory", issuedAt: now } satisfies DirectoryQuery, secret);

/** The query if `secret` (the named region's) signed it within the last minute; null otherwise. */
export async function verifyDirectoryQuery(token: string, region: Region, secret: string, now = Date.now()) {
  const query = (await verifyToken(token, secret)) as DirectoryQuery | null;
  if (query?.purpose !== "directory" || query.region !== region || typeof query.issuedAt !== "number") return null;
  if (!Array.isArray(query.userIds) || query.userIds.some((id) => typeof id !== "string")) return null;
  return Math.abs(now - query.issuedAt) <= maxAgeMs ? query : null;
}
