import type { ApiKey } from "@crm/contracts";
import type { Context } from "hono";
import type { Child } from "hono/jsx";
import { getKey, replaceKey, revokeKey } from "../routes/api-key-store";
import { redirectToReveal } from "./api-keys-page";
import type { ConsoleEnv } from "./console-env";
import { ownerOf } from "./console-session";
import { ConsoleProblem } from "./forms";
import { maskedKey } from "./key-queries";
import { CsrfField, Layout } from "./layout";
import { ScopeSummary } from "./scope-areas";
import { RelativeTime } from "./times";

/**
 * Revoke and replace, each in two steps: a page (GET) that names the key and what stops working,
 * and its form (POST), which acts and sends the browser back to the list with a notice (303).
 */
const keyIdOf = (c: Context<ConsoleEnv>) => {
  const id = c.req.param("keyId");
  if (!id || !/^key_[0-9a-z]{3,64}$/.test(id)) throw new ConsoleProblem(404, "No such key", "There is no such API key.");
  return id;
};

const actions = {
  revoke: {
    title: (name: string) => `Revoke “${name}”?`,
    button: "Revoke key",
    consequence: (masked: Child) => (
      <>
        Every program that sends {masked} will be refused (401): at once here, within a minute everywhere. A revoked key cannot be
        brought back.
      </>
    ),
  },
  replace: {
    title: (name: string) => `Replace “${name}”?`,
    button: "Replace key",
    consequence: (masked: Child) => (
      <>
        A new key with the same name, access, workspaces and expiry period is made and shown once, and {masked} stops working at
        the same moment: every program that sends it will be refused (401) until you give it the new key.
      </>
    ),
  },
} as const;
type KeyAction = keyof typeof actions;

function ConfirmKeyAction({ c, apiKey, action }: { c: Context<ConsoleEnv>; apiKey: ApiKey; action: KeyAction }) {
  const { title, button, consequence } = actions[action];
  return (
    <Layout title={title(apiKey.name)} signedIn={c.var.signedIn}>
      <div class="card confirm">
        <dl class="facts">
          <dt>Key</dt>
          <dd>
            <code>{maskedKey(apiKey.prefix)}</code>
          </dd>
          <dt>Access</dt>
          <dd>
            <ScopeSummary granted={apiKey.scopes} />
          </dd>
          <dt>Last used</dt>
          <dd>
            <RelativeTime at={apiKey.lastUsedAt} empty="Never" />
          </dd>
        </dl>
        <p class="warning">{consequence(<code>{maskedKey(apiKey.prefix)}</code>)}</p>
        <form method="post" action={`/console/api-keys/${apiKey.id}/${action}`} class="actions">
          <CsrfField token={c.var.signedIn.csrf} />
          <button type="submit" class="danger">
            {button}
          </button>
          <a class="button" href="/console/api-keys">
            Cancel
          </a>
        </form>
      </div>
    </Layout>
  );
}

const confirmPage = (action: KeyAction) => async (c: Context<ConsoleEnv>) => {
  const apiKey = await getKey(c.var.controlDb, ownerOf(c), keyIdOf(c));
  return c.html(<ConfirmKeyAction c={c} apiKey={apiKey} action={action} />);
};
export const confirmRevokeKey = confirmPage("revoke");
export const confirmReplaceKey = confirmPage("replace");

export async function revokeKeyFromForm(c: Context<ConsoleEnv>) {
  const id = keyIdOf(c);
  await revokeKey(c.var.controlDb, ownerOf(c), id);
  return c.redirect(`/console/api-keys?revoked=${id}`, 303);
}

export async function replaceKeyFromForm(c: Context<ConsoleEnv>) {
  const replaced = await replaceKey(c.var.controlDb, ownerOf(c), keyIdOf(c));
  return redirectToReveal(c, replaced.key, { apiKeyId: replaced.apiKey.id, replacedKeyId: replaced.replacedId });
}
