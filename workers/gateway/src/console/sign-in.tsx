import { control } from "@crm/db";
import { eq } from "drizzle-orm";
import type { Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { randomSecret } from "../identity/identity-secret";
import { passwordMatches } from "../identity/passwords";
import { createSession, csrfTokenFor, csrfTokenValid, setSessionCookie } from "../identity/sessions";
import { membershipsOf } from "../pipeline/session-credential";
import type { ConsoleEnv } from "./console-env";
import { ConsoleProblem, readForm } from "./forms";
import { Layout } from "./layout";
import { safeReturnTo } from "./return-to";
import { beginSignIn } from "./sign-in-limits";

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
  return csrfTokenFor(c.env.IDENTITY_SECRET, `sign-in:${nonce}`);
}

function SignInPage({ csrf, returnTo, email, problem }: { csrf: string; returnTo: string; email?: string; problem?: string }) {
  return (
    <Layout title="Sign in">
      {problem && (
        <p role="alert" class="error">
          {problem}
        </p>
      )}
      <form method="post" action="/console/sign-in">
        <input type="hidden" name="csrf" value={csrf} />
        <input type="hidden" name="return_to" value={returnTo} />
        <p>
          <label>
            E-mail <input type="email" name="email" required maxlength={254} autocomplete="username" value={email ?? ""} />
          </label>
        </p>
        <p>
          <label>
            Password <input type="password" name="password" required maxlength={1024} autocomplete="current-password" />
          </label>
        </p>
        <button type="submit">Sign in</button>
      </form>
    </Layout>
  );
}

export async function showSignIn(c: Context<ConsoleEnv>) {
  const returnTo = safeReturnTo(c.req.query("return_to"));
  return c.html(<SignInPage csrf={await signInCsrf(c)} returnTo={returnTo} />);
}

const wrongCredentials = "Wrong e-mail or password.";

export async function signIn(c: Context<ConsoleEnv>) {
  const form = await readForm(c);
  const nonce = getCookie(c, signInCookie);
  if (!nonce || !(await csrfTokenValid(c.env.IDENTITY_SECRET, `sign-in:${nonce}`, form.get("csrf")))) {
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
    return c.html(<SignInPage csrf={await signInCsrf(c)} returnTo={returnTo} email={email} problem={wrongCredentials} />, 401);
  }
  await attempt.succeeded();
  const [first] = await membershipsOf(db, user.id);
  const { session, token } = await createSession(db, { userId: user.id, organizationId: first?.organizationId ?? null });
  setSessionCookie(c, token, session);
  return c.redirect(returnTo, 303);
}
