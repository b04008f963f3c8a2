import { control } from "@crm/db";
import { eq } from "drizzle-orm";
import type { Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { gatewayConfig } from "../config";
import { randomSecret } from "../identity/identity-secret";
import { passwordMatches } from "../identity/passwords";
import { createSession, csrfTokenFor, csrfTokenValid, setSessionCookie } from "../identity/sessions";
import { membershipsOf } from "../pipeline/session-credential";
import type { ConsoleEnv } from "./console-env";
import { ConsoleProblem, readForm } from "./forms";
import { Layout } from "./layout";
import { safeReturnTo } from "./return-to";
import { beginSignIn } from "./sign-in-limits";
import { AuthorizationRequestSummary, authorizationRequestOf } from "./sign-in-request";

/**
 * Sign-in has no session yet, so its form's CSRF token is bound to a random value in a short-lived
 * cookie of its own: a form posted from another site (login CSRF) carries no matching token.
 */
const signInCookie = "__Host-sign-in";

async function signInCsrf(c: Context<ConsoleEnv>): Promise<string> {
  let nonce = getCookie(c, signInCookie);
  if (!nonce || nonce.length > 64) {
    nonce = randomSecret(16);
    setCookie(c, signInCookie, nonce, { httpOnly: true, secure: true, sameSite: "Lax", path: "/", maxAge: 3600 });
  }
  return csrfTokenFor(gatewayConfig(c.env).identitySecret, `sign-in:${nonce}`);
}

interface SignInPageProps {
  csrf: string;
  returnTo: string;
  email?: string;
  problem?: string;
  /** The application's authorization request this sign-in leads back to, if any. */
  asking: Awaited<ReturnType<typeof authorizationRequestOf>>;
}

function SignInPage({ csrf, returnTo, email, problem, asking }: SignInPageProps) {
  return (
    <Layout title={asking ? `Sign in to continue to ${asking.clientName}` : "Sign in"}>
      <div class="sign-in">
        {problem && (
          <p role="alert" class="error">
            {problem}
          </p>
        )}
        {asking && <AuthorizationRequestSummary asking={asking} />}
        <form method="post" action="/console/sign-in" class="card">
          <input type="hidden" name="csrf" value={csrf} />
          <input type="hidden" name="return_to" value={returnTo} />
          <div class="field">
            <label for="email">E-mail</label>
            <input id="email" type="email" name="email" required maxlength={254} autocomplete="username" value={email ?? ""} />
          </div>
          <div class="field">
            <label for="password">Password</label>
            <input id="password" type="password" name="password" required maxlength={1024} autocomplete="current-password" />
          </div>
          <button type="submit" class="primary">
            Sign in
          </button>
        </form>
      </div>
    </Layout>
  );
}

export async function showSignIn(c: Context<ConsoleEnv>) {
  const returnTo = safeReturnTo(c.req.query("return_to"));
  const asking = await authorizationRequestOf(c, returnTo);
  return c.html(<SignInPage csrf={await signInCsrf(c)} returnTo={returnTo} asking={asking} />);
}

const wrongCredentials = "Wrong e-mail or password.";

export async function signIn(c: Context<ConsoleEnv>) {
  const form = await readForm(c);
  const nonce = getCookie(c, signInCookie);
  if (!nonce || !(await csrfTokenValid(gatewayConfig(c.env).identitySecret, `sign-in:${nonce}`, form.get("csrf")))) {
    throw new ConsoleProblem(
      403,
      "Form expired",
      "This sign-in form has expired or came from another page. Nothing was changed: reload the page and sign in again.",
    );
  }
  const email = (form.get("email") ?? "").trim().toLowerCase();
  const password = form.get("password") ?? "";
  const returnTo = safeReturnTo(form.get("return_to"));
  const ip = c.req.header("cf-connecting-ip") ?? "unknown";
  const attempt = await beginSignIn(c.env, ip, email);
  if (attempt.refused) {
    const minutes = Math.ceil(attempt.retryAfterMs / 60_000);
    c.header("retry-after", String(Math.ceil(attempt.retryAfterMs / 1000)));
    throw new ConsoleProblem(
      429,
      "Too many sign-in attempts",
      `Too many failed sign-ins. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`,
    );
  }
  const db = c.var.controlDb;
  const [user] = await db
    .select({ id: control.users.id, passwordHash: control.users.passwordHash })
    .from(control.users)
    .where(eq(control.users.email, email))
    .limit(1);
  // An unknown e-mail runs the same derivation as a wrong password (passwords.ts): same answer, same time.
  if (!(await passwordMatches(password, user?.passwordHash ?? null)) || !user) {
    const asking = await authorizationRequestOf(c, returnTo);
    return c.html(
      <SignInPage csrf={await signInCsrf(c)} returnTo={returnTo} email={email} problem={wrongCredentials} asking={asking} />,
      401,
    );
  }
  await attempt.succeeded();
  const [first] = await membershipsOf(db, user.id);
  const { session, token } = await createSession(db, { userId: user.id, organizationId: first?.organizationId ?? null });
  setSessionCookie(c, token, session);
  return c.redirect(returnTo, 303);
}
