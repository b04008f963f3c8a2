import { raw } from "hono/html";
import type { Child } from "hono/jsx";
import type { Membership } from "../pipeline/session-credential";

/** What every signed-in page shows around its content: navigation, organization switcher, sign-out. */
export interface SignedIn {
  user: { id: string; name: string; email: string };
  memberships: Membership[];
  organizationId: string;
  csrf: string;
  /** The page's own path, where the organization switcher comes back to. */
  path: string;
}

const pages = [
  { path: "/console/api-keys", label: "API keys" },
  { path: "/console/applications", label: "Authorized applications" },
  { path: "/console/usage", label: "Usage" },
];

/** Hidden CSRF field of every console form. */
export const CsrfField = ({ token }: { token: string }) => <input type="hidden" name="csrf" value={token} />;

export function Layout({ title, signedIn, children }: { title: string; signedIn?: SignedIn; children: Child }) {
  return (
    <>
      {raw("<!doctype html>")}
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <title>{`${title} · CRM console`}</title>
          <link rel="stylesheet" href="/console/console.css" />
        </head>
        <body>
          <header>
            <strong>CRM console</strong>
            {signedIn && <Navigation signedIn={signedIn} />}
          </header>
          <main>
            <h1>{title}</h1>
            {children}
          </main>
        </body>
      </html>
    </>
  );
}

function Navigation({ signedIn }: { signedIn: SignedIn }) {
  const { user, memberships, organizationId, csrf, path } = signedIn;
  return (
    <nav>
      {pages.map((page) => (
        <a href={page.path} aria-current={page.path === path ? "page" : undefined}>
          {page.label}
        </a>
      ))}
      {memberships.length > 1 ? (
        <form method="post" action="/console/organization" class="inline">
          <CsrfField token={csrf} />
          <input type="hidden" name="return_to" value={path} />
          <label>
            Organization{" "}
            <select name="organizationId">
              {memberships.map((membership) => (
                <option value={membership.organizationId} selected={membership.organizationId === organizationId}>
                  {membership.name}
                </option>
              ))}
            </select>
          </label>{" "}
          <button type="submit">Switch</button>
        </form>
      ) : (
        <span>{memberships[0]?.name}</span>
      )}
      <form method="post" action="/console/sign-out" class="inline">
        <CsrfField token={csrf} />
        <span title={user.email}>{user.name}</span> <button type="submit">Sign out</button>
      </form>
    </nav>
  );
}

/** A page that says what went wrong and that nothing changed; a link back. */
export const ErrorPage = ({ title, message, signedIn }: { title: string; message: string; signedIn?: SignedIn }) => (
  <Layout title={title} signedIn={signedIn}>
    <p role="alert" class="error">
      {message}
    </p>
    <p>
      <a href={signedIn ? signedIn.path : "/console/sign-in"}>Back</a>
    </p>
  </Layout>
);

/** Times as the console shows them: UTC, to the minute. */
export const formatTime = (ms: number | null) =>
  ms === null ? "—" : `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;

/** The console's one stylesheet, served by the gateway (`/console/console.css`): no CDN, no inline styles. */
export const stylesheet = `
:root { font-family: system-ui, sans-serif; color: #1d2330; background: #f6f7f9; }
body { margin: 0; }
header { display: flex; flex-wrap: wrap; gap: 1rem; align-items: center; padding: .75rem 1.5rem; background: #1d2330; color: #fff; }
header a, header span { color: #fff; }
nav { display: flex; flex-wrap: wrap; gap: 1rem; align-items: center; flex: 1; }
nav a[aria-current="page"] { font-weight: 700; text-decoration: none; }
nav form.inline:last-child { margin-left: auto; }
main { max-width: 72rem; margin: 0 auto; padding: 1rem 1.5rem 3rem; }
form.inline { display: inline; }
fieldset { border: 1px solid #cfd4dc; margin: 0 0 1rem; }
label { display: inline-block; margin: .25rem 1rem .25rem 0; }
input[type="text"], input[type="email"], input[type="password"], select { padding: .35rem; font: inherit; }
button { font: inherit; padding: .3rem .8rem; cursor: pointer; }
table { border-collapse: collapse; width: 100%; background: #fff; margin-bottom: 1.5rem; }
th, td { text-align: left; padding: .4rem .5rem; border-bottom: 1px solid #e3e6eb; vertical-align: top; font-size: .92rem; }
code { font-family: ui-monospace, monospace; }
.new-key { background: #fff8d6; border: 1px solid #e2c84a; padding: 1rem; margin-bottom: 1.5rem; }
.new-key code { font-size: 1.05rem; word-break: break-all; user-select: all; }
.error { background: #fde8e8; border: 1px solid #d9534f; padding: .75rem; }
.muted { color: #5d6675; }
svg text { font-size: 11px; fill: #1d2330; }
.legend span { display: inline-block; margin-right: 1rem; }
.legend svg { vertical-align: middle; margin-right: .3rem; }
`;
