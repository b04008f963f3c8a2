import { type ApiKey, apiKeyActivityLimit, apiKeyExpiryDays, apiKeySettingsSchema } from "@crm/contracts";
import type { Context } from "hono";
import type { Child } from "hono/jsx";
import { gatewayCall } from "../pipeline/operation-call";
import { activityOf, createKey, listKeys, reachableWorkspaces, revokeKey } from "../routes/api-key-store";
import type { ConsoleEnv } from "./console-env";
import { ownerOf } from "./console-session";
import { CopyScript } from "./copy-button";
import { readForm } from "./forms";
import { activityCounts, keyLabel, maskedKey } from "./key-queries";
import { type KeyReveal, storeReveal, takeReveal } from "./key-reveals";
import { CsrfField, Layout, Notice, type SignedIn } from "./layout";
import { isScopePreset, ScopePicker, type ScopePreset, ScopeSummary, scopesOfForm } from "./scope-areas";
import { DateTime, RelativeTime } from "./times";

/** The API keys page: the user's keys in the selected organization, their latest uses, the create form. */
type Workspace = { id: string; name: string };
export type KeyUse = { at: number; method: string; route: string; status: number; ip: string | null };

/** Uses shown under each key; the rest (up to `apiKeyActivityLimit`) are on the usage page. */
const shownActivity = 5;

export const usageOfKey = (keyId: string) => `/console/usage?key=${encodeURIComponent(keyId)}`;

/** A route such as `GET /integrations/connections/{connectionId}`, allowed to wrap after its slashes only. */
export const RouteName = ({ route }: { route: string }) => (
  <code>
    {route.split("/").map((part, index) => (
      <>
        {index > 0 && (
          <>
            /<wbr />
          </>
        )}
        {part}
      </>
    ))}
  </code>
);

export function ActivityTable({ uses, caption }: { uses: KeyUse[]; caption: string }) {
  if (uses.length === 0) return <p class="muted">Not used yet.</p>;
  return (
    <table class="activity">
      <caption class="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          <th scope="col">When</th>
          <th scope="col">Request</th>
          <th scope="col">Status</th>
          <th scope="col">From</th>
        </tr>
      </thead>
      <tbody>
        {uses.map((use) => (
          <tr>
            <td>
              <RelativeTime at={use.at} />
            </td>
            <td>
              <RouteName route={`${use.method} ${use.route}`} />
            </td>
            <td>{use.status}</td>
            <td>
              <code>{use.ip ?? "—"}</code>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Expiry({ at }: { at: number | null }) {
  if (at === null) return <span>Never</span>;
  return (
    <span>
      <DateTime at={at} /> ({at <= Date.now() ? "expired" : <RelativeTime at={at} />})
    </span>
  );
}

function KeyCard({ apiKey, uses, kept, workspaces }: { apiKey: ApiKey; uses: KeyUse[]; kept: number; workspaces: Workspace[] }) {
  const workspaceName = (id: string) => workspaces.find((workspace) => workspace.id === id)?.name ?? id;
  // Links repeat on every card: their names say which key (WCAG 2.4.4), beginning with the visible words.
  const named = (action: string) => `${action} “${apiKey.name}”…`;
  return (
    <article class="card" data-key-id={apiKey.id} aria-labelledby={`name-${apiKey.id}`}>
      <header>
        <h3 id={`name-${apiKey.id}`}>{apiKey.name}</h3>
        <code>{maskedKey(apiKey.prefix)}</code>
      </header>
      <dl class="facts">
        <dt>Access</dt>
        <dd>
          <ScopeSummary granted={apiKey.scopes} />
        </dd>
        <dt>Workspaces</dt>
        <dd>{apiKey.workspaceIds === null ? "All you can reach" : apiKey.workspaceIds.map(workspaceName).join(", ")}</dd>
        <dt>Created</dt>
        <dd>
          <DateTime at={apiKey.createdAt} />
        </dd>
        <dt>Expires</dt>
        <dd>
          <Expiry at={apiKey.expiresAt} />
        </dd>
        <dt>Last used</dt>
        <dd>
          <RelativeTime at={apiKey.lastUsedAt} empty="Never" />
        </dd>
      </dl>
      <details>
        <summary>{kept === 0 ? "Activity: not used yet" : `Activity: latest ${uses.length} of ${kept} uses`}</summary>
        <ActivityTable uses={uses} caption={`Latest uses of ${apiKey.name}`} />
        {kept > 0 && (
          <p>
            <a href={usageOfKey(apiKey.id)} aria-label={`All ${kept} uses kept for “${apiKey.name}”, on the usage page`}>
              All {kept} uses kept for this key, on the usage page
            </a>{" "}
            <span class="muted">(the latest {apiKeyActivityLimit} are kept)</span>
          </p>
        )}
      </details>
      <div class="actions">
        <a class="button" href={`/console/api-keys/${apiKey.id}/replace`} aria-label={named("Replace")}>
          Replace…
        </a>
        <a class="button danger" href={`/console/api-keys/${apiKey.id}/revoke`} aria-label={named("Revoke")}>
          Revoke…
        </a>
      </div>
    </article>
  );
}

/** What the create form shows again after a refusal: the person's own choices. */
interface CreateFormValues {
  name: string;
  preset: ScopePreset;
  scopes: string[];
  workspaceIds: string[];
  expiresInDays: string;
}
const emptyForm: CreateFormValues = { name: "", preset: "custom", scopes: [], workspaceIds: [], expiresInDays: "30" };

function CreateForm({
  workspaces,
  csrf,
  values,
  problem,
}: {
  workspaces: Workspace[];
  csrf: string;
  values: CreateFormValues;
  problem?: string;
}) {
  return (
    <section aria-labelledby="create-title">
      <h2 id="create-title">Create a key</h2>
      <form method="post" action="/console/api-keys" class="card">
        {/* The alert at the top already announced it; here it sits where it is fixed. */}
        {problem && <p class="error">{problem}</p>}
        <CsrfField token={csrf} />
        <div class="field">
          <label for="key-name">Name</label>
          <input
            id="key-name"
            type="text"
            name="name"
            required
            maxlength={255}
            value={values.name}
            aria-describedby="key-name-hint"
          />
          <p class="muted" id="key-name-hint">
            What the key is for, so you recognise it in this list.
          </p>
        </div>
        <ScopePicker preset={values.preset} checked={values.scopes} />
        <fieldset class="workspaces">
          <legend>Workspaces</legend>
          <p class="muted">None ticked: every workspace you can reach, now and later.</p>
          {workspaces.map((workspace) => (
            <label>
              <input
                type="checkbox"
                name="workspaceIds"
                value={workspace.id}
                checked={values.workspaceIds.includes(workspace.id)}
              />{" "}
              {workspace.name}
            </label>
          ))}
        </fieldset>
        <div class="field">
          <label for="expires">Expires</label>
          <select id="expires" name="expiresInDays">
            {apiKeyExpiryDays.map((days) => (
              <option value={String(days)} selected={String(days) === values.expiresInDays}>{`in ${days} days`}</option>
            ))}
            <option value="" selected={values.expiresInDays === ""}>
              never
            </option>
          </select>
        </div>
        <button type="submit" class="primary">
          Create key
        </button>
      </form>
    </section>
  );
}

/** The key of a reveal, shown this once, with a copy button (and selectable text where script is off). */
function RevealedKey({
  shown,
  nonce,
}: {
  shown: KeyReveal & { key: string; name: string; replacedPrefix: string | null };
  nonce: string;
}) {
  return (
    <section class="new-key" aria-labelledby="new-key-title">
      <h2 id="new-key-title">{shown.replacedPrefix ? `Replacement for “${shown.name}”` : `New key “${shown.name}”`}</h2>
      {shown.replacedPrefix && (
        <p>
          The old key <code>{maskedKey(shown.replacedPrefix)}</code> stopped working when this one was made: give this one to
          every program that used it.
        </p>
      )}
      <p>
        <strong>Copy it now: it is shown this once.</strong> Once you leave or reload this page it cannot be shown again.
      </p>
      <div class="key-box">
        <code id="new-key">{shown.key}</code>
        <button type="button" class="primary" data-copy="new-key" hidden>
          Copy key
        </button>
      </div>
      <p id="new-key-status" class="muted" role="status">
        Click the key to select all of it, then copy it.
      </p>
      <CopyScript nonce={nonce} />
    </section>
  );
}

async function renderKeysPage(
  c: Context<ConsoleEnv>,
  top: { problem?: string; values?: CreateFormValues; notice?: Child; shown?: Parameters<typeof RevealedKey>[0]["shown"] },
  status: 200 | 400 = 200,
) {
  const signedIn: SignedIn = c.var.signedIn;
  const db = c.var.controlDb;
  const [keys, workspaces] = await Promise.all([
    listKeys(db, ownerOf(c)),
    reachableWorkspaces(gatewayCall(c), c.var.actor, new URL(c.req.url).origin),
  ]);
  const ids = keys.map((key) => key.id);
  const [activity, kept] = await Promise.all([activityOf(db, ids, shownActivity), activityCounts(db, ids)]);
  return c.html(
    <Layout title="API keys" signedIn={signedIn}>
      {top.problem && (
        <p role="alert" class="error">
          {top.problem} <a href="#create-title">Back to the form</a>
        </p>
      )}
      {top.notice}
      {top.shown && <RevealedKey shown={top.shown} nonce={c.var.cspNonce} />}
      <div class="heading-row">
        <h2>
          Your keys <span class="count">({keys.length === 1 ? "1 live key" : `${keys.length} live keys`}, all shown)</span>
        </h2>
        <a href="#create-title">Create a key</a>
      </div>
      {keys.length === 0 ? (
        <p class="muted">You have no API keys in this organization yet.</p>
      ) : (
        <div class="cards">
          {keys.map((apiKey) => (
            <KeyCard
              apiKey={apiKey}
              uses={activity.get(apiKey.id) ?? []}
              kept={kept.get(apiKey.id) ?? 0}
              workspaces={workspaces}
            />
          ))}
        </div>
      )}
      <CreateForm workspaces={workspaces} csrf={signedIn.csrf} values={top.values ?? emptyForm} problem={top.problem} />
    </Layout>,
    status,
  );
}

/**
 * `GET /console/api-keys`, with what the last action left: `reveal` (a key to show once) or
 * `revoked` (a key revoked). A reveal already shown says so instead of failing.
 */
export async function showKeys(c: Context<ConsoleEnv>) {
  const db = c.var.controlDb;
  const reference = c.req.query("reveal");
  if (reference !== undefined) {
    const reveal = await takeReveal(db, c.var.session.id, reference);
    if (!reveal) {
      return renderKeysPage(c, {
        notice: (
          <div class="warning" role="status">
            <strong>This key can no longer be displayed.</strong> A key is shown once, right after it is made. If you did not copy
            it, replace the key to get a new one.
          </div>
        ),
      });
    }
    const made = await keyLabel(db, ownerOf(c), reveal.apiKeyId);
    const replaced = reveal.replacedKeyId ? await keyLabel(db, ownerOf(c), reveal.replacedKeyId) : null;
    return renderKeysPage(c, {
      shown: { ...reveal, name: made?.name ?? "", replacedPrefix: replaced?.prefix ?? null },
    });
  }
  const revokedId = c.req.query("revoked");
  const revoked = revokedId ? await keyLabel(db, ownerOf(c), revokedId) : null;
  return renderKeysPage(c, {
    notice: revoked?.revokedAt ? (
      <Notice>
        Revoked “{revoked.name}” (<code>{maskedKey(revoked.prefix)}</code>). Requests with it are refused: at once here, within a
        minute everywhere.
      </Notice>
    ) : undefined,
  });
}

/**
 * Shows a key made by a form once, on the page the browser is sent to (303): a reload never posts
 * again. A key whose reveal could not be stored was never seen by anyone, so it is revoked.
 */
export async function redirectToReveal(c: Context<ConsoleEnv>, key: string, reveal: KeyReveal) {
  const db = c.var.controlDb;
  let reference: string;
  try {
    reference = await storeReveal(db, c.var.session.id, key, reveal);
  } catch (error) {
    await revokeKey(db, ownerOf(c), reveal.apiKeyId);
    throw error;
  }
  return c.redirect(`/console/api-keys?reveal=${reference}`, 303);
}

export async function createKeyFromForm(c: Context<ConsoleEnv>) {
  const form = await readForm(c);
  const access = form.get("access") ?? "custom";
  const values: CreateFormValues = {
    name: form.get("name") ?? "",
    preset: isScopePreset(access) ? access : "custom",
    scopes: form.all("scopes"),
    workspaceIds: form.all("workspaceIds"),
    expiresInDays: form.get("expiresInDays") ?? "",
  };
  const parsed = apiKeySettingsSchema.safeParse({
    name: values.name,
    scopes: scopesOfForm(values.preset, values.scopes),
    workspaceIds: values.workspaceIds.length > 0 ? values.workspaceIds : null,
    expiresInDays: values.expiresInDays === "" ? null : Number(values.expiresInDays),
  });
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const field = String(issue.path[0] ?? "form");
      return field === "scopes" && issue.code === "too_small" ? "choose at least one scope" : `${field}: ${issue.message}`;
    });
    return renderKeysPage(c, { problem: `The key was not created: ${problems.join("; ")}.`, values }, 400);
  }
  const reachable = parsed.data.workspaceIds
    ? await reachableWorkspaces(gatewayCall(c), c.var.actor, new URL(c.req.url).origin)
    : [];
  const created = await createKey(c.var.controlDb, ownerOf(c), parsed.data, reachable);
  return redirectToReveal(c, created.key, { apiKeyId: created.apiKey.id, replacedKeyId: null });
}
