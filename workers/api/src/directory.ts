import {
  type ActorContext,
  type DirectoryEntry,
  type DirectoryQuery,
  directoryPath,
  type Person,
  signDirectoryQuery,
} from "@crm/contracts";
import type { RegionBindings } from "./bindings";

/**
 * Who the people of the organization are, as the gateway's control D1 knows them (names, addresses,
 * organization roles, agents): the one source of every person a response shows and of the members
 * directory. Asked when a response is made, one call per response whatever it lists, and never
 * kept: a region holds no copy that could fall behind a changed name.
 */
export interface Directory {
  /** The entries a members list needs, or the users named (`everyAdmin`/`agents` false). */
  entries(organizationId: string, query: Pick<DirectoryQuery, "userIds" | "everyAdmin" | "agents">): Promise<DirectoryEntry[]>;
  /** The users named, as `{ id, name, email }`; ids the directory does not know are left out. */
  people(organizationId: string, userIds: string[]): Promise<Map<string, Person>>;
}

/**
 * The directory over the region's service binding to the gateway, with a query signed by this
 * region's secret. The request names the gateway's own origin, as the forwarded MCP requests do: the
 * local stack answers loopback host names only.
 */
export function gatewayDirectory(
  env: Pick<RegionBindings, "GATEWAY" | "GATEWAY_CONTEXT_SECRET" | "REGION" | "PUBLIC_ORIGIN">,
): Directory {
  // One per environment (an isolate's requests share theirs): it holds nothing of a request.
  let directory = directories.get(env);
  if (!directory) {
    directory = directoryOver(env);
    directories.set(env, directory);
  }
  return directory;
}

const directories = new WeakMap<object, Directory>();

function directoryOver(env: Pick<RegionBindings, "GATEWAY" | "GATEWAY_CONTEXT_SECRET" | "REGION" | "PUBLIC_ORIGIN">): Directory {
  const entries: Directory["entries"] = async (organizationId, query) => {
    const token = await signDirectoryQuery({ region: env.REGION, organizationId, ...query }, env.GATEWAY_CONTEXT_SECRET);
    const response = await env.GATEWAY.fetch(`${env.PUBLIC_ORIGIN}${directoryPath}?region=${env.REGION}`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: token,
    });
    if (!response.ok) throw new Error(`The directory answered ${response.status}`);
    return ((await response.json()) as { entries: DirectoryEntry[] }).entries;
  };
  return {
    entries,
    async people(organizationId, userIds) {
      const wanted = [...new Set(userIds)];
      if (wanted.length === 0) return new Map();
      const found = await entries(organizationId, { userIds: wanted, everyAdmin: false, agents: false });
      return new Map(
        found.flatMap((entry) =>
          entry.type === "user" && entry.email !== null
            ? [[entry.id, { id: entry.id, name: entry.name, email: entry.email }]]
            : [],
        ),
      );
    },
  };
}

/** The people of `ids` in that order, those the directory knows. */
export const peopleIn = (ids: string[], people: Map<string, Person>): Person[] =>
  ids.flatMap((id) => {
    const person = people.get(id);
    return person ? [person] : [];
  });

/**
 * Each resource with its `creator` as the directory shows them: one directory call for all; null
 * where no user created it (the system, an agent, an app) or the directory no longer knows them.
 */
export async function withCreators<Resource>(
  { actor, directory }: { actor: ActorContext; directory: Directory },
  resources: Resource[],
  creatorId: (resource: Resource) => string | null,
): Promise<(Resource & { creator: Person | null })[]> {
  const userIds = resources.map(creatorId).filter((id): id is string => id?.startsWith("usr_") ?? false);
  const people = await directory.people(actor.organizationId, userIds);
  return resources.map((resource) => ({ ...resource, creator: people.get(creatorId(resource) ?? "") ?? null }));
}
