import type { openApiDocument } from "@crm/contracts";
import { html, raw } from "hono/html";

type Document = ReturnType<typeof openApiDocument>;
type OperationObject = NonNullable<NonNullable<Document["paths"]>[string]["get"]>;

const methods = ["get", "post", "put", "patch", "delete"] as const;

const anchor = (text: string) => text.replace(/[^A-Za-z0-9]+/g, "-");
const schemaText = (value: unknown) => JSON.stringify(value, null, 2);

function operationSection(method: string, path: string, operation: OperationObject) {
  const extensions = operation as OperationObject & { "x-scope"?: string | null; "x-token-cost"?: number; "x-mcp-tool"?: string };
  const parameters = (operation.parameters ?? []) as { name: string; in: string; required?: boolean; description?: string }[];
  const body = operation.requestBody as { content?: Record<string, { schema?: unknown }> } | undefined;
  const responses = Object.entries(operation.responses ?? {}) as [
    string,
    { description?: string; content?: Record<string, { schema?: unknown }> },
  ][];
  return html`<section class="operation" id="${anchor(operation.operationId ?? path)}">
    <h3><span class="method ${method}">${method.toUpperCase()}</span> <code>${path}</code></h3>
    <p class="summary">${operation.summary ?? ""}</p>
    ${operation.description ? html`<p>${operation.description}</p>` : ""}
    <dl class="facts">
      <dt>operationId</dt><dd><code>${operation.operationId ?? ""}</code></dd>
      <dt>Scope</dt><dd>${extensions["x-scope"] ? html`<code>${extensions["x-scope"]}</code>` : "none"}</dd>
      <dt>Token cost</dt><dd>${String(extensions["x-token-cost"] ?? 0)}</dd>
      <dt>MCP tool</dt><dd><code>${extensions["x-mcp-tool"] ?? ""}</code></dd>
    </dl>
    ${
      parameters.length > 0
        ? html`<h4>Parameters</h4><table><thead><tr><th>Name</th><th>In</th><th>Required</th><th>Description</th></tr></thead><tbody>
          ${parameters.map(
            (parameter) =>
              html`<tr><td><code>${parameter.name}</code></td><td>${parameter.in}</td><td>${parameter.required ? "yes" : "no"}</td><td>${parameter.description ?? ""}</td></tr>`,
          )}</tbody></table>`
        : ""
    }
    ${body?.content ? html`<h4>Request body</h4><pre>${schemaText(body.content["application/json"]?.schema)}</pre>` : ""}
    <h4>Responses</h4>
    <ul class="responses">
      ${responses.map(
        ([status, response]) =>
          html`<li><strong>${status}</strong> ${response.description ?? ""}${
            status.startsWith("2") && response.content
              ? html`<pre>${schemaText(response.content["application/json"]?.schema)}</pre>`
              : ""
          }</li>`,
      )}
    </ul>
  </section>`;
}

/**
 * The API reference page, rendered on the server from the OpenAPI document: no script, no CDN,
 * so it loads anywhere the gateway runs, including the offline local stack.
 */
export function docsPage(document: Document) {
  const operations = Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    methods.flatMap((method) => (item[method] ? [{ method, path, operation: item[method] as OperationObject }] : [])),
  );
  const tags = (document.tags ?? []).map((tag) => ({
    ...tag,
    operations: operations.filter(({ operation }) => operation.tags?.includes(tag.name)),
  }));
  const schemas = Object.entries(document.components?.schemas ?? {});
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${document.info.title} ${document.info.version}</title>
<style>${raw(styles)}</style>
</head>
<body>
<nav>
  <h1>${document.info.title}</h1>
  <p class="version">v${document.info.version} · <a href="openapi.json">openapi.json</a></p>
  ${tags.map(
    (tag) =>
      html`<h2>${tag.name}</h2><ul>${tag.operations.map(
        ({ method, path, operation }) =>
          html`<li><a href="#${anchor(operation.operationId ?? path)}"><span class="method ${method}">${method.toUpperCase()}</span> ${path}</a></li>`,
      )}</ul>`,
  )}
  <h2><a href="#schemas">Schemas</a></h2>
</nav>
<main>
  <header>
    <p>${document.info.description ?? ""}</p>
    <p>Base URL: <code>${document.servers?.[0]?.url ?? ""}</code>. Authenticate with <code>Authorization: Bearer &lt;API_KEY&gt;</code> or an OAuth 2.0 access token.</p>
  </header>
  ${tags.map(
    (tag) =>
      html`<h2 id="${anchor(tag.name)}">${tag.name}</h2><p>${tag.description ?? ""}</p>${tag.operations.map(
        ({ method, path, operation }) => operationSection(method, path, operation),
      )}`,
  )}
  <h2 id="schemas">Schemas</h2>
  ${schemas.map(([name, schema]) => html`<section class="schema" id="schema-${anchor(name)}"><h3>${name}</h3><pre>${schemaText(schema)}</pre></section>`)}
</main>
</body>
</html>`;
}

const styles = `
*{box-sizing:border-box}body{margin:0;display:flex;font:15px/1.5 system-ui,sans-serif;color:#1f2328}
nav{width:300px;height:100vh;overflow:auto;position:sticky;top:0;padding:16px;background:#f6f8fa;border-right:1px solid #d0d7de}
nav h1{font-size:18px;margin:0}nav h2{font-size:13px;text-transform:uppercase;color:#57606a;margin:18px 0 4px}
nav ul{list-style:none;margin:0;padding:0}nav li a{display:block;padding:2px 0;color:#1f2328;text-decoration:none;font-size:13px}
main{flex:1;padding:24px 40px;max-width:1000px}.operation{border-top:1px solid #d0d7de;padding:12px 0}
.method{display:inline-block;min-width:56px;padding:0 6px;border-radius:4px;color:#fff;font:600 12px/20px monospace;text-align:center}
.get{background:#1f883d}.post{background:#0969da}.put{background:#8250df}.patch{background:#bf8700}.delete{background:#cf222e}
pre{background:#f6f8fa;padding:8px;overflow:auto;font-size:12px;border-radius:6px}table{border-collapse:collapse}
td,th{border:1px solid #d0d7de;padding:4px 8px;text-align:left;font-size:13px}.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px}
.facts dt{color:#57606a}.facts dd{margin:0}.version{color:#57606a;font-size:13px}
`;
