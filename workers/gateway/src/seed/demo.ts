import { hmacKey, readScopes, type Scope, scopes, toBase64Url, type WorkspaceRole } from "@crm/contracts";
import type { control } from "@crm/db";
import { apiKeyFromBytes, hashApiKey } from "../api-keys";
import type { Region } from "../env";

/**
 * The demo data of DESIGN.md section 13, derived deterministically from a seed secret: the same
 * secret always yields the same ids and keys, which makes seeding idempotent across restarts.
 */

type InboxAccess = "all" | "record_read" | "record_reply";

interface DemoUser {
  label: string;
  name: string;
  email: string;
  organizationRole: "owner" | "admin" | "member";
  /** Workspace memberships by workspace label; a workspace missing here is reached by inheritance or not at all. */
  memberships: Record<string, { role: WorkspaceRole; inboxAccess: InboxAccess }>;
}

/** A user of another demo organization who belongs to this one too; their demo key is for their home organization. */
interface DemoGuest {
  label: string;
  organizationRole: DemoUser["organizationRole"];
  memberships: DemoUser["memberships"];
}

interface DemoOrganization {
  label: string;
  name: string;
  region: Region;
  /** Each workspace with its shared mailbox (DESIGN.md section 13). */
  workspaces: { label: string; name: string; description: string; mailbox: string }[];
  users: DemoUser[];
  guests?: DemoGuest[];
  agent?: { label: string; name: string };
  /** The workspace whose demo meetings come through provider connections, and the user who connects them. */
  meetingsWorkspace?: string;
  meetingsOwner?: string;
}

export const demoOrganizations: DemoOrganization[] = [
  {
    label: "acme",
    name: "Acme",
    region: "us",
    meetingsWorkspace: "sales",
    meetingsOwner: "alice",
    workspaces: [
      { label: "sales", name: "Sales", description: "Pipeline and customer accounts", mailbox: "sales@acme.example" },
      { label: "support", name: "Support", description: "Customer support inbox", mailbox: "support@acme.example" },
    ],
    users: [
      // alice owns the organization: Sales by membership, Support by inheritance.
      {
        label: "alice",
        name: "Alice Archer",
        email: "alice@acme.example",
        organizationRole: "owner",
        memberships: { sales: { role: "owner", inboxAccess: "all" } },
      },
      {
        label: "bob",
        name: "Bob Baker",
        email: "bob@acme.example",
        organizationRole: "member",
        memberships: {
          sales: { role: "member", inboxAccess: "record_read" },
          support: { role: "member", inboxAccess: "record_read" },
        },
      },
      {
        label: "carol",
        name: "Carol Chen",
        email: "carol@acme.example",
        organizationRole: "member",
        memberships: { sales: { role: "viewer", inboxAccess: "all" }, support: { role: "viewer", inboxAccess: "all" } },
      },
    ],
    agent: { label: "acme-agent", name: "Acme assistant" },
  },
  {
    label: "globex",
    name: "Globex",
    region: "eu",
    workspaces: [{ label: "globex-main", name: "Operations", description: "Everything Globex", mailbox: "ops@globex.example" }],
    users: [
      {
        label: "dave",
        name: "Dave Diaz",
        email: "dave@globex.example",
        organizationRole: "owner",
        memberships: { "globex-main": { role: "owner", inboxAccess: "all" } },
      },
    ],
    // erin (Initech) is a member here too: the user in several organizations of DESIGN.md section 3.
    guests: [
      { label: "erin", organizationRole: "member", memberships: { "globex-main": { role: "member", inboxAccess: "all" } } },
    ],
  },
  {
    // In the us region like Acme: tenancy is tested inside one database, not only across regions.
    label: "initech",
    name: "Initech",
    region: "us",
    workspaces: [{ label: "initech-main", name: "Main", description: "Everything Initech", mailbox: "hello@initech.example" }],
    users: [
      {
        label: "erin",
        name: "Erin Evans",
        email: "erin@initech.example",
        organizationRole: "owner",
        memberships: { "initech-main": { role: "owner", inboxAccess: "all" } },
      },
    ],
  },
];

/** A user as defined in their home organization, by label: how a guest's name and e-mail are found. */
export function demoUser(label: string): DemoUser {
  const user = demoOrganizations.flatMap((organization) => organization.users).find((candidate) => candidate.label === label);
  if (!user) throw new Error(`No demo user ${label}`);
  return user;
}

const crockford = "0123456789abcdefghjkmnpqrstvwxyz";

async function derive(secret: string, label: string): Promise<Uint8Array> {
  const key = await hmacKey(secret);
  const encoder = new TextEncoder();
  const first = await crypto.subtle.sign("HMAC", key, encoder.encode(`${label}#1`));
  const second = await crypto.subtle.sign("HMAC", key, encoder.encode(`${label}#2`));
  return new Uint8Array([...new Uint8Array(first), ...new Uint8Array(second)]);
}

/** A stable id of the same shape as `newId` (prefix, 26 base32 characters). */
export async function demoId(secret: string, prefix: string, label: string): Promise<string> {
  const bytes = await derive(secret, `id:${prefix}:${label}`);
  return `${prefix}_${[...bytes.slice(0, 26)].map((byte) => crockford[byte % 32]).join("")}`;
}

export async function demoApiKey(secret: string, label: string) {
  const { key, prefix } = apiKeyFromBytes((await derive(secret, `key:${label}`)).slice(0, 41));
  return { key, prefix, secretHash: await hashApiKey(key) };
}

/** A user's console password, readable and stable: `demo-` and 16 base32 characters. */
export async function demoPassword(secret: string, label: string): Promise<string> {
  const bytes = await derive(secret, `password:${label}`);
  return `demo-${[...bytes.slice(0, 16)].map((byte) => crockford[byte % 32]).join("")}`;
}

/** A client secret as the OAuth server hands them out: 32 bytes, base64url. */
export async function demoClientSecret(secret: string, label: string): Promise<string> {
  return toBase64Url((await derive(secret, `client-secret:${label}`)).slice(0, 32));
}

export interface DemoOAuthClient {
  label: string;
  name: string;
  type: "confidential" | "public";
  redirectUri: string;
  grantTypes: control.OAuthGrantType[];
  /** The demo organization it is installed in for client credentials, by label. */
  installedIn?: string;
}

/**
 * A confidential web app installed in Acme (authorization code for its users, client credentials
 * for itself) and a public client (PKCE only), such as a desktop or MCP client registers.
 */
export const demoOAuthClients: DemoOAuthClient[] = [
  {
    label: "acme-reports",
    name: "Acme Reports (demo web app)",
    type: "confidential",
    redirectUri: "http://localhost:3000/oauth/callback",
    grantTypes: ["authorization_code", "refresh_token", "client_credentials"],
    installedIn: "acme",
  },
  {
    label: "demo-desktop",
    name: "Demo desktop client (public)",
    type: "public",
    redirectUri: "http://127.0.0.1:53682/callback",
    grantTypes: ["authorization_code", "refresh_token"],
  },
];

export interface DemoKeySpec {
  label: string;
  ownerType: "user" | "agent";
  ownerLabel: string;
  name: string;
  scopes: readonly Scope[];
  workspaceLabels: string[] | null;
  state: "active" | "expired" | "revoked";
}

/** Every user and agent gets a full-scope key; alice also a read-only, an expired and a revoked one. */
export function demoKeys(organization: DemoOrganization): DemoKeySpec[] {
  const keys: DemoKeySpec[] = organization.users.map((user) => ({
    label: user.label,
    ownerType: "user",
    ownerLabel: user.label,
    name: `${user.name} (demo, full access)`,
    scopes,
    workspaceLabels: null,
    state: "active",
  }));
  if (organization.agent) {
    const agent = organization.agent;
    keys.push({
      label: agent.label,
      ownerType: "agent",
      ownerLabel: agent.label,
      name: `${agent.name} (demo)`,
      scopes,
      workspaceLabels: null,
      state: "active",
    });
  }
  if (organization.label === "acme") {
    const alice = { ownerType: "user" as const, ownerLabel: "alice" };
    keys.push(
      {
        ...alice,
        label: "alice-read-only",
        name: "Read-only, Sales",
        scopes: readScopes,
        workspaceLabels: ["sales"],
        state: "active",
      },
      { ...alice, label: "alice-expired", name: "Expired", scopes, workspaceLabels: null, state: "expired" },
      { ...alice, label: "alice-revoked", name: "Revoked", scopes, workspaceLabels: null, state: "revoked" },
    );
  }
  return keys;
}
