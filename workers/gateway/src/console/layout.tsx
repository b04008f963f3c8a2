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
  { path: "/console/applications", label: "Applications" },
  { path: "/console/usage", label: "Usage" },
];

/** The page a path belongs to: a key's confirmation page is still "API keys". */
const isWithin = (path: string, page: string) => path === page || path.startsWith(`${page}/`);

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
          <link rel="icon" href="/console/favicon.svg" type="image/svg+xml" />
          <link rel="stylesheet" href="/console/console.css" />
        </head>
        <body>
          <a class="skip" href="#main">
            Skip to content
          </a>
          <header class="top">
            <a class="brand" href={signedIn ? "/console/api-keys" : "/console/sign-in"}>
              <img src="/console/favicon.svg" alt="" width="24" height="24" /> CRM console
            </a>
            {signedIn && <Navigation signedIn={signedIn} />}
          </header>
          <main id="main" tabindex={-1}>
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
    <>
      <nav aria-label="Console">
        {pages.map((page) => (
          <a href={page.path} aria-current={isWithin(path, page.path) ? "page" : undefined}>
            {page.label}
          </a>
        ))}
      </nav>
      <div class="account">
        {memberships.length > 1 ? (
          <form method="post" action="/console/organization" class="switcher">
            <CsrfField token={csrf} />
            <input type="hidden" name="return_to" value={path} />
            <label for="organization">Organization</label>
            <select id="organization" name="organizationId">
              {memberships.map((membership) => (
                <option value={membership.organizationId} selected={membership.organizationId === organizationId}>
                  {membership.name}
                </option>
              ))}
            </select>
            <button type="submit">Switch</button>
          </form>
        ) : (
          <span class="organization">{memberships[0]?.name}</span>
        )}
        <form method="post" action="/console/sign-out" class="sign-out">
          <CsrfField token={csrf} />
          <span title={user.email}>{user.name}</span> <button type="submit">Sign out</button>
        </form>
      </div>
    </>
  );
}

/** What the last action did, on the page it led back to. */
export const Notice = ({ children }: { children: Child }) => (
  <div class="notice" role="status">
    {children}
  </div>
);

/** Back to the page the failed request belongs to (never the failed address itself). */
function BackLink({ signedIn }: { signedIn?: SignedIn }) {
  if (!signedIn) return <a href="/console/sign-in">Back to sign-in</a>;
  const page = pages.find((candidate) => isWithin(signedIn.path, candidate.path)) ?? pages[0];
  return <a href={page?.path}>{`Back to ${page?.label}`}</a>;
}

/** A page that says what went wrong and that nothing changed; a link back. */
export const ErrorPage = ({ title, message, signedIn }: { title: string; message: string; signedIn?: SignedIn }) => (
  <Layout title={title} signedIn={signedIn}>
    <p role="alert" class="error">
      {message}
    </p>
    <p>
      <BackLink signedIn={signedIn} />
    </p>
  </Layout>
);

/** The console's icon: the tab's favicon and the header's mark. */
export const favicon = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1c5fd4"/><path d="M21.5 11.2a7 7 0 1 0 0 9.6" fill="none" stroke="#fff" stroke-width="3.6" stroke-linecap="round"/></svg>`;

/**
 * The console's one stylesheet, served by the gateway (`/console/console.css`): no CDN, no inline
 * styles. Narrow screens first (from 360 px); tables that cannot fit scroll inside their own box.
 */
export const stylesheet = `
:root { font-family: system-ui, sans-serif; line-height: 1.45; color: #1d2330; background: #f3f4f7; --line: #d5dae2; --muted: #4f5866; --accent: #1c5fd4; --danger: #b42318; }
* { box-sizing: border-box; }
body { margin: 0; }
a { color: #174ea6; }
/* Two tones, so the focus shows on the dark header and on white alike. */
:focus-visible { outline: 3px solid #1d2330; outline-offset: 2px; box-shadow: 0 0 0 2px #f0b400; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
.skip { position: absolute; left: -999px; top: .5rem; background: #fff; padding: .5rem 1rem; z-index: 1; }
.skip:focus { left: .5rem; }
header.top { display: flex; flex-wrap: wrap; gap: .5rem 1.25rem; align-items: center; padding: .6rem 1rem; background: #1d2330; color: #fff; }
header.top a, header.top span { color: #fff; }
.brand { display: inline-flex; align-items: center; gap: .45rem; font-weight: 700; text-decoration: none; }
nav { display: flex; flex-wrap: wrap; gap: .25rem; flex: 1 1 auto; }
nav a { padding: .35rem .6rem; border-radius: 6px; text-decoration: none; }
nav a:hover { background: #2e3648; }
nav a[aria-current="page"] { background: #fff; color: #1d2330; font-weight: 700; }
.account { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; font-size: .92rem; }
.account form { display: flex; gap: .4rem; align-items: center; flex-wrap: wrap; }
.account button { background: transparent; color: #fff; border-color: #8b93a3; }
.account select { color: #1d2330; padding: .3rem .4rem; }
main { max-width: 72rem; margin: 0 auto; padding: 1rem 1rem 3rem; }
main:focus { outline: none; }
h1 { font-size: 1.6rem; margin: .5rem 0 1rem; }
h2 { font-size: 1.2rem; margin: 1.75rem 0 .6rem; }
h3 { font-size: 1.05rem; margin: 0; }
p { margin: .5rem 0; }
.muted { color: var(--muted); }
code { font-family: ui-monospace, monospace; font-size: .9em; overflow-wrap: anywhere; }
button, .button { display: inline-block; font: inherit; font-size: .95rem; padding: .4rem .9rem; border-radius: 6px; border: 1px solid #8b93a3; background: #fff; color: #1d2330; cursor: pointer; text-decoration: none; }
button.primary, .button.primary { background: var(--accent); border-color: var(--accent); color: #fff; }
button.danger, .button.danger { background: var(--danger); border-color: var(--danger); color: #fff; }
.actions { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; margin-top: 1rem; }
input[type="text"], input[type="email"], input[type="password"], select { font: inherit; padding: .45rem .5rem; border: 1px solid #8b93a3; border-radius: 6px; max-width: 100%; background: #fff; color: inherit; }
label { display: block; }
.field { margin: 0 0 1rem; }
.field > label { font-weight: 600; margin-bottom: .25rem; }
.field input[type="text"], .field input[type="email"], .field input[type="password"] { width: 100%; max-width: 26rem; }
fieldset { border: 1px solid var(--line); border-radius: 8px; margin: 0 0 1rem; padding: .75rem 1rem; min-width: 0; }
legend { font-weight: 600; padding: 0 .25rem; }
.card { background: #fff; border: 1px solid var(--line); border-radius: 10px; padding: 1rem; margin: 0 0 1rem; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 30rem), 1fr)); gap: 0 1rem; }
.heading-row { display: flex; flex-wrap: wrap; justify-content: space-between; align-items: baseline; gap: .5rem 1rem; }
.facts.grant + .facts.grant { border-top: 1px solid var(--line); padding-top: .6rem; }
.card.confirm { max-width: 44rem; }
.card > header { display: flex; flex-wrap: wrap; justify-content: space-between; gap: .5rem 1rem; align-items: baseline; margin-bottom: .5rem; }
.facts { display: grid; grid-template-columns: minmax(7rem, max-content) 1fr; gap: .3rem 1rem; margin: .5rem 0; }
.facts dt { color: var(--muted); }
.facts dd { margin: 0; min-width: 0; }
ul.scopes { list-style: none; margin: 0; padding: 0; }
ul.scopes .area { font-weight: 600; }
.count { color: var(--muted); font-size: .92rem; }
.table-box { overflow-x: auto; max-width: 100%; margin-bottom: 1rem; }
table { border-collapse: collapse; width: 100%; background: #fff; }
th, td { text-align: left; padding: .4rem .5rem; border-bottom: 1px solid #e3e6eb; vertical-align: top; font-size: .92rem; }
th { background: #eef0f4; }
td.number, th.number { text-align: right; font-variant-numeric: tabular-nums; }
time { white-space: nowrap; }
details > summary { cursor: pointer; color: #174ea6; padding: .25rem 0; }
.notice { background: #e7f5ec; border: 1px solid #2f8a4f; border-radius: 8px; padding: .75rem 1rem; margin-bottom: 1rem; }
.error { background: #fde8e8; border: 1px solid #d9534f; border-radius: 8px; padding: .75rem 1rem; }
.warning { background: #fff4d6; border: 1px solid #c99a06; border-radius: 8px; padding: .75rem 1rem; }
.new-key { background: #fff8d6; border: 2px solid #c99a06; border-radius: 10px; padding: 1rem; margin-bottom: 1.5rem; }
.new-key h2 { margin-top: 0; }
.key-box { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; }
.key-box code { flex: 1 1 16rem; background: #fff; border: 1px solid #c99a06; border-radius: 6px; padding: .5rem; font-size: 1rem; word-break: break-all; user-select: all; }
.scope-picker .preset { margin: .25rem 0; }
.scope-areas { display: grid; grid-template-columns: repeat(auto-fill, minmax(16rem, 1fr)); gap: .75rem; margin-top: .75rem; }
.scope-areas fieldset { margin: 0; padding: .5rem .75rem; }
.scope-picker:has(input[name="access"][value="custom"]:not(:checked)) .scope-areas { display: none; }
label.scope { display: flex; gap: .4rem; align-items: baseline; margin: .3rem 0; }
label.scope code { display: block; color: var(--muted); font-size: .8rem; }
.workspaces label { display: inline-flex; gap: .35rem; margin: .2rem 1rem .2rem 0; }
.filters { display: flex; flex-wrap: wrap; gap: .75rem 1rem; align-items: end; background: #fff; border: 1px solid var(--line); border-radius: 10px; padding: .75rem 1rem; margin-bottom: 1rem; }
.filters label { font-weight: 600; font-size: .9rem; }
.filters select { display: block; margin-top: .2rem; max-width: 16rem; }
.totals { display: grid; grid-template-columns: repeat(auto-fit, minmax(6.5rem, 1fr)); gap: .75rem; margin: 0 0 1rem; }
.totals div { background: #fff; border: 1px solid var(--line); border-radius: 10px; padding: .75rem 1rem; }
.totals dt { color: var(--muted); font-size: .9rem; }
.totals dd { margin: 0; font-size: 1.4rem; font-weight: 700; }
.totals .note { display: block; font-size: .85rem; font-weight: 400; color: var(--muted); }
figure { margin: 0 0 1rem; background: #fff; border: 1px solid var(--line); border-radius: 10px; padding: .75rem; }
/* Right to left, so that a chart wider than a phone opens on its latest days; the chart itself reads left to right. */
.chart-box { overflow-x: auto; direction: rtl; }
.chart-box svg { min-width: 42rem; display: block; direction: ltr; }
svg text { font-size: 13px; fill: #1d2330; }
.legend { display: flex; flex-wrap: wrap; gap: .25rem 1rem; margin-top: .5rem; font-size: .9rem; }
.legend svg { vertical-align: middle; margin-right: .3rem; }
.sign-in { max-width: 28rem; }
.asking { background: #fff; border: 1px solid var(--line); border-radius: 10px; padding: .75rem 1rem; margin-bottom: 1rem; }
.asking h2 { margin-top: 0; }
.asking ul { margin: .25rem 0 0; padding-left: 1.2rem; }
@media (min-width: 48rem) {
  header.top { padding: .6rem 1.5rem; }
  main { padding: 1.25rem 1.5rem 3rem; }
}
`;
