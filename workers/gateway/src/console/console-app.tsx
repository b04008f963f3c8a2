import { ApiError, logUnexpectedError } from "@crm/contracts";
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { randomSecret } from "../identity/identity-secret";
import { clearSessionCookie, revokeSession, selectSessionOrganization } from "../identity/sessions";
import { createKeyFromForm, showKeys } from "./api-keys-page";
import { confirmRevokeApplication, revokeApplication, showApplications } from "./applications-page";
import type { ConsoleEnv } from "./console-env";
import { requireSession } from "./console-session";
import { ConsoleProblem, maxFormBytes, readForm } from "./forms";
import { confirmReplaceKey, confirmRevokeKey, replaceKeyFromForm, revokeKeyFromForm } from "./key-actions";
import { ErrorPage, favicon, stylesheet } from "./layout";
import { consoleHome, safeReturnTo } from "./return-to";
import { showSignIn, signIn } from "./sign-in";
import { showUsage } from "./usage-page";

/**
 * The console (DESIGN.md section 3), server-rendered under `/console` and usable without script:
 * sign-in, API keys, authorized applications, usage, organization switcher, sign-out. Pages are
 * never cached or framed and load nothing but the gateway's own stylesheet and icon; the one
 * script (the copy button's) runs only under the response's nonce.
 */
const securityHeaders = {
  "referrer-policy": "same-origin",
  "x-content-type-options": "nosniff",
  // frame-ancestors' predecessor, for browsers that do not read the policy.
  "x-frame-options": "DENY",
};
const contentSecurityPolicy = (nonce: string) =>
  `default-src 'none'; style-src 'self'; img-src 'self'; script-src 'nonce-${nonce}'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`;

export function consoleApp() {
  const app = new Hono<ConsoleEnv>();
  app.use(async (c, next) => {
    c.set("cspNonce", randomSecret(16));
    await next();
    c.header("content-security-policy", contentSecurityPolicy(c.var.cspNonce));
    for (const [name, value] of Object.entries(securityHeaders)) c.header(name, value);
    if (!c.res.headers.has("cache-control")) c.header("cache-control", "no-store");
  });
  app.use(
    bodyLimit({
      maxSize: maxFormBytes,
      onError: () => {
        throw new ConsoleProblem(
          413,
          "Form too large",
          `A console form is at most ${maxFormBytes / 1024} KiB. Nothing was changed.`,
        );
      },
    }),
  );
  app.get("/console.css", (c) =>
    c.body(stylesheet, 200, { "content-type": "text/css; charset=utf-8", "cache-control": "public, max-age=300" }),
  );
  app.get("/favicon.svg", (c) =>
    c.body(favicon, 200, { "content-type": "image/svg+xml", "cache-control": "public, max-age=86400" }),
  );
  app.get("/sign-in", showSignIn);
  app.post("/sign-in", signIn);

  app.use(requireSession);
  app.get("/", (c) => c.redirect(consoleHome, 303));
  app.post("/sign-out", async (c) => {
    await revokeSession(c.var.controlDb, c.var.session.id);
    clearSessionCookie(c);
    return c.redirect("/console/sign-in", 303);
  });
  app.post("/organization", async (c) => {
    const form = await readForm(c);
    const organizationId = form.get("organizationId");
    if (!c.var.signedIn.memberships.some((membership) => membership.organizationId === organizationId) || !organizationId) {
      throw new ConsoleProblem(404, "No such organization", "You are not a member of that organization. Nothing was changed.");
    }
    await selectSessionOrganization(c.var.controlDb, c.var.session.id, organizationId);
    return c.redirect(safeReturnTo(form.get("return_to")), 303);
  });
  app.get("/api-keys", showKeys);
  app.post("/api-keys", createKeyFromForm);
  app.get("/api-keys/:keyId/revoke", confirmRevokeKey);
  app.post("/api-keys/:keyId/revoke", revokeKeyFromForm);
  app.get("/api-keys/:keyId/replace", confirmReplaceKey);
  app.post("/api-keys/:keyId/replace", replaceKeyFromForm);
  app.get("/applications", showApplications);
  app.get("/applications/:clientId/revoke", confirmRevokeApplication);
  app.post("/applications/:clientId/revoke", revokeApplication);
  app.get("/usage", showUsage);

  app.onError((error, c) => {
    const signedIn = c.get("signedIn");
    if (error instanceof ConsoleProblem) {
      return c.html(<ErrorPage title={error.title} message={error.message} signedIn={signedIn} />, error.status);
    }
    if (error instanceof ApiError && error.status < 500) {
      const status = error.status as 400 | 403 | 404 | 409 | 429;
      return c.html(
        <ErrorPage
          title={status === 404 ? "Not found" : "Not done"}
          message={`${error.message}. Nothing was changed.`}
          signedIn={signedIn}
        />,
        status,
      );
    }
    logUnexpectedError(error, {
      requestId: c.var.requestId,
      route: `${c.req.method} ${c.req.routePath}`,
      code: "internal_error",
    });
    return c.html(
      <ErrorPage
        title="Something went wrong"
        message={`Nothing was changed. Quote ${c.var.requestId} to support.`}
        signedIn={signedIn}
      />,
      500,
    );
  });
  return app;
}
