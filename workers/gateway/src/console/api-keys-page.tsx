import { type ApiKey, apiKeyExpiryDays, apiKeySettingsSchema, scopes } from "@crm/contracts";
import type { Context } from "hono";
import { gatewayCall } from "../pipeline/operation-call";
import { activityOf, createKey, listKeys, reachableWorkspaces, replaceKey, revokeKey } from "../routes/api-key-store";
import type { ConsoleEnv } from "./console-env";
import { ownerOf } from "./console-session";
import { ConsoleProblem, readForm } from "./forms";
import { CsrfField, formatTime, Layout, type SignedIn } from "./layout";

/** The API keys page: the user's keys in the selected organization, their activity, and the create form. */
type Activity = Awaited<ReturnType<typeof activityOf>>;
type Workspace = { id: string; name: string };

const shownActivity = 10;

function KeyRow({
  apiKey,
  activity,
  workspaces,
  csrf,
}: {
  apiKey: ApiKey;
  activity: Activity;
  workspaces: Workspace[];
  csrf: string;
}) {
  const uses = activity.get(apiKey.id) ?? [];
  const workspaceName = (id: string) => workspaces.find((workspace) => workspace.id === id)?.name ?? id;
  const expired = apiKey.expiresAt !== null && apiKey.expiresAt <= Date.now();
  return (
    <tr data-key-id={apiKey.id}>
      <td>{apiKey.name}</td>
      <td>
        <code>{`crm_${apiKey.prefix}_…`}</code>
      </td>
      <td>{apiKey.scopes.join(", ")}</td>
      <td>{apiKey.workspaceIds === null ? "All workspaces" : apiKey.workspaceIds.map(workspaceName).join(", ")}</td>
      <td>
        {apiKey.expiresAt === null ? "Never" : formatTime(apiKey.expiresAt)}
        {expired && " (expired)"}
      </td>
      <td>{formatTime(apiKey.lastUsedAt)}</td>
      <td>
        <details>
          <summary>{`${uses.length} recent use${uses.length === 1 ? "" : "s"}`}</summary>
          <ActivityTable uses={uses} />
        </details>
      </td>
      <td>
        <form method="post" action={`/console/api-keys/${apiKey.id}/replace`} class="inline">
          <CsrfField token={csrf} />
          <button type="submit">Replace</button>
        </form>{" "}
        <form method="post" action={`/console/api-keys/${apiKey.id}/revoke`} class="inline">
          <CsrfField token={csrf} />
          <button type="submit">Revoke</button>
        </form>
      </td>
    </tr>
  );
}

export function ActivityTable({
  uses,
}: {
  uses: { at: number; method: string; route: string; status: number; ip: string | null }[];
}) {
  if (uses.length === 0) return <p class="muted">Not used yet.</p>;
  return (
    <table class="activity">
      <thead>
        <tr>
          <th>Time</th>
          <th>Route</th>
          <th>Status</th>
          <th>IP</th>
        </tr>
      </thead>
      <tbody>
        {uses.map((use) => (
          <tr>
            <td>{formatTime(use.at)}</td>
            <td>
              <code>{`${use.method} ${use.route}`}</code>
            </td>
            <td>{use.status}</td>
            <td>{use.ip ?? "—"}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function CreateForm({ workspaces, csrf }: { workspaces: Workspace[]; csrf: string }) {
  return (
    <form method="post" action="/console/api-keys">
      <h2>Create a key</h2>
      <CsrfField token={csrf} />
      <p>
        <label>
          Name <input type="text" name="name" required maxlength={255} />
        </label>
      </p>
      <fieldset>
        <legend>Scopes</legend>
        {scopes.map((scope) => (
          <label>
            <input type="checkbox" name="scopes" value={scope} /> {scope}
          </label>
        ))}
      </fieldset>
      <fieldset>
        <legend>Workspace limit (none checked: every workspace you can reach)</legend>
        {workspaces.map((workspace) => (
          <label>
            <input type="checkbox" name="workspaceIds" value={workspace.id} /> {workspace.name}
          </label>
        ))}
      </fieldset>
      <p>
        <label>
          Expires{" "}
          <select name="expiresInDays">
            {apiKeyExpiryDays.map((days) => (
              <option value={String(days)} selected={days === 30}>{`in ${days} days`}</option>
            ))}
            <option value="">never</option>
          </select>
        </label>
      </p>
      <button type="submit">Create key</button>
    </form>
  );
}

async function renderKeysPage(
  c: Context<ConsoleEnv>,
  shown?: { key: string; apiKey: ApiKey; replaced: boolean },
  problem?: string,
  status: 200 | 201 | 400 = 200,
) {
  const signedIn: SignedIn = c.var.signedIn;
  const db = c.var.controlDb;
  const [keys, workspaces] = await Promise.all([
    listKeys(db, ownerOf(c)),
    reachableWorkspaces(gatewayCall(c), c.var.actor, new URL(c.req.url).origin),
  ]);
  const activity = await activityOf(
    db,
    keys.map((key) => key.id),
    shownActivity,
  );
  return c.html(
    <Layout title="API keys" signedIn={signedIn}>
      {problem && (
        <p role="alert" class="error">
          {problem}
        </p>
      )}
      {shown && (
        <section class="new-key" aria-live="polite">
          <h2>{shown.replaced ? `Replacement for “${shown.apiKey.name}”` : `New key “${shown.apiKey.name}”`}</h2>
          <p>Copy it now: it is shown this once and never again.</p>
          <p>
            <code id="new-key">{shown.key}</code>
          </p>
        </section>
      )}
      {keys.length === 0 ? (
        <p class="muted">You have no API keys in this organization yet.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>Name</th>
              <th>Key</th>
              <th>Scopes</th>
              <th>Workspaces</th>
              <th>Expires</th>
              <th>Last used</th>
              <th>Activity</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {keys.map((apiKey) => (
              <KeyRow apiKey={apiKey} activity={activity} workspaces={workspaces} csrf={signedIn.csrf} />
            ))}
          </tbody>
        </table>
      )}
      <CreateForm workspaces={workspaces} csrf={signedIn.csrf} />
    </Layout>,
    status,
  );
}

export const showKeys = (c: Context<ConsoleEnv>) => renderKeysPage(c);

export async function createKeyFromForm(c: Context<ConsoleEnv>) {
  const form = await readForm(c);
  const workspaceIds = form.all("workspaceIds");
  const expiry = form.get("expiresInDays") ?? "";
  const parsed = apiKeySettingsSchema.safeParse({
    name: form.get("name") ?? "",
    scopes: form.all("scopes"),
    workspaceIds: workspaceIds.length > 0 ? workspaceIds : null,
    expiresInDays: expiry === "" ? null : Number(expiry),
  });
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".") || "form"}: ${issue.message}`);
    return renderKeysPage(c, undefined, `The key was not created. ${problems.join("; ")}`, 400);
  }
  const reachable = parsed.data.workspaceIds
    ? await reachableWorkspaces(gatewayCall(c), c.var.actor, new URL(c.req.url).origin)
    : [];
  const created = await createKey(c.var.controlDb, ownerOf(c), parsed.data, reachable);
  return renderKeysPage(c, { ...created, replaced: false }, undefined, 201);
}

const keyIdOf = (c: Context<ConsoleEnv>) => {
  const id = c.req.param("keyId");
  if (!id || !/^key_[0-9a-z]{3,64}$/.test(id)) throw new ConsoleProblem(404, "No such key", "There is no such API key.");
  return id;
};

export async function revokeKeyFromForm(c: Context<ConsoleEnv>) {
  await revokeKey(c.var.controlDb, ownerOf(c), keyIdOf(c));
  return c.redirect("/console/api-keys", 303);
}

export async function replaceKeyFromForm(c: Context<ConsoleEnv>) {
  const replaced = await replaceKey(c.var.controlDb, ownerOf(c), keyIdOf(c));
  return renderKeysPage(c, { ...replaced, replaced: true }, undefined, 201);
}
