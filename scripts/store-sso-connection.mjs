// Pushes one SSO connection to the dev stack as the identity service would: POST
// {baseUrl}/internal/sso/store, signed with SSO_STORE_SECRET (from .dev.vars) as DESIGN.md section 12
// says, and prints the answer. For trying the route after `npm run dev`:
//
//   node scripts/store-sso-connection.mjs [--organization <name or id>] [--protocol saml|oidc] \
//     [--domain <domain> ...] [--metadata-url <https URL>] [--issuer <https URL>] [--enforced] \
//     [--nonce <nonce>] [--timestamp <Unix seconds>]
//
// Defaults: Acme, SAML, its demo domain, not enforced, a fresh nonce, now. Sending the same --nonce
// again is a replay: refused with 401, nothing stored. Exit code 1 when the API refuses the push.
import { createHmac, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    organization: { type: "string", default: "Acme" },
    protocol: { type: "string", default: "saml" },
    domain: { type: "string", multiple: true },
    "metadata-url": { type: "string" },
    issuer: { type: "string" },
    enforced: { type: "boolean", default: false },
    nonce: { type: "string" },
    timestamp: { type: "string" },
  },
});

function readDemo() {
  try {
    return JSON.parse(readFileSync(".dev/demo.json", "utf8"));
  } catch {
    console.error("No .dev/demo.json: start the dev stack first (npm run dev).");
    process.exit(2);
  }
}

const demo = readDemo();
const secret = /^SSO_STORE_SECRET=(.*)$/m.exec(readFileSync(".dev.vars", "utf8"))?.[1];
if (!secret) {
  console.error("No SSO_STORE_SECRET in .dev.vars: run npm run dev once to write it.");
  process.exit(2);
}
const organization = demo.organizations.find((candidate) => [candidate.id, candidate.name].includes(values.organization));
if (!organization) {
  console.error(`No demo organization ${values.organization}; there are ${demo.organizations.map((o) => o.name).join(", ")}`);
  process.exit(2);
}
// The demo mailboxes' domain (e.g. acme.example) is the organization's.
const demoDomain = organization.workspaces[0]?.mailbox.split("@")[1] ?? "example.com";
const domains = values.domain ?? [demoDomain];
const connection =
  values.protocol === "oidc"
    ? { issuer: values.issuer ?? `https://login.${domains[0]}` }
    : { metadataUrl: values["metadata-url"] ?? `https://idp.${domains[0]}/saml/metadata` };
const body = JSON.stringify({
  organizationId: organization.id,
  protocol: values.protocol,
  domains,
  ...connection,
  enforced: values.enforced,
});

const timestamp = values.timestamp ?? String(Math.floor(Date.now() / 1000));
const nonce = values.nonce ?? randomUUID();
const signature = createHmac("sha256", secret).update(`${timestamp}.${nonce}.${body}`).digest("hex");
const response = await fetch(`${demo.baseUrl}/internal/sso/store`, {
  method: "POST",
  headers: {
    "content-type": "application/json",
    "x-sso-timestamp": timestamp,
    "x-sso-nonce": nonce,
    "x-sso-signature": signature,
  },
  body,
});
console.log(`nonce ${nonce} → ${response.status} ${await response.text()}`);
process.exit(response.ok ? 0 : 1);
