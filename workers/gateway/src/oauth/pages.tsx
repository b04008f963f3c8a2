import { type Scope, scopeDescriptions } from "@crm/contracts";
import type { Child } from "hono/jsx";

const style = `
body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f5f6f8;color:#1c1f24}
main{max-width:34rem;margin:3rem auto;background:#fff;border:1px solid #dde1e6;border-radius:8px;padding:2rem}
h1{font-size:1.4rem;margin-top:0}ul{padding-left:1.2rem}.muted{color:#5b636e;font-size:.9rem}
fieldset{border:1px solid #dde1e6;border-radius:6px;margin:1rem 0}.actions{display:flex;gap:1rem;margin-top:1.5rem}
button{font:inherit;padding:.5rem 1.2rem;border-radius:6px;border:1px solid #1c1f24;background:#fff;cursor:pointer}
button.allow{background:#1c5fd4;border-color:#1c5fd4;color:#fff}`;

function Layout(props: { title: string; children: Child }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{props.title}</title>
        <style>{style}</style>
      </head>
      <body>
        <main>{props.children}</main>
      </body>
    </html>
  );
}

/** An authorization failure that must not go to the client's redirect URI (or has none to go to). */
export function AuthorizationErrorPage(props: { title: string; description: string }) {
  return (
    <Layout title={props.title}>
      <h1>{props.title}</h1>
      <p>{props.description}</p>
      <p class="muted">Return to the application and start again. Nothing was authorized.</p>
    </Layout>
  );
}

interface ConsentPageProps {
  clientName: string;
  /** Dynamically registered clients name themselves: say so. */
  selfRegistered: boolean;
  redirectHost: string;
  userEmail: string;
  scopes: Scope[];
  resourceName: string;
  organizations: { id: string; name: string }[];
  selectedOrganizationId: string | null;
  reference: string;
  csrfToken: string;
}

/** The consent page (DESIGN.md section 3): who asks, for what, in which organization; Allow or Deny. Works without JavaScript. */
export function ConsentPage(props: ConsentPageProps) {
  const [only] = props.organizations;
  const checked = props.selectedOrganizationId ?? only?.id;
  return (
    <Layout title={`Authorize ${props.clientName}`}>
      <h1>Authorize {props.clientName}</h1>
      <p>
        <strong>{props.clientName}</strong> wants to use the {props.resourceName} as <strong>{props.userEmail}</strong>. You will
        be sent back to <strong>{props.redirectHost}</strong>.
      </p>
      {props.selfRegistered ? (
        <p class="muted">This application registered itself; its name is not verified. Allow it only if you started this.</p>
      ) : null}
      <form method="post" action="/oauth/authorize">
        <p>It will be able to:</p>
        <ul>
          {props.scopes.map((scope) => (
            <li>
              {scopeDescriptions[scope]} <span class="muted">({scope})</span>
            </li>
          ))}
        </ul>
        {props.organizations.length === 1 && only ? (
          <p>
            Organization: <strong>{only.name}</strong>
            <input type="hidden" name="organization" value={only.id} />
          </p>
        ) : (
          <fieldset>
            <legend>Organization</legend>
            {props.organizations.map((organization) => (
              <label>
                <input type="radio" name="organization" value={organization.id} checked={organization.id === checked} />{" "}
                {organization.name}
                <br />
              </label>
            ))}
            <label>
              <input type="radio" name="organization" value="" /> All my organizations (the application names one in each request)
            </label>
          </fieldset>
        )}
        <input type="hidden" name="reference" value={props.reference} />
        <input type="hidden" name="csrf_token" value={props.csrfToken} />
        <div class="actions">
          <button class="allow" type="submit" name="decision" value="allow">
            Allow
          </button>
          <button type="submit" name="decision" value="deny">
            Deny
          </button>
        </div>
      </form>
    </Layout>
  );
}
