/** Renders the OpenAPI document as one plain HTML page, with no script: what /docs shows when the Redoc bundle is missing. */
export function renderPlainDocsPage(doc: {
  info: { title: string; description?: string };
  paths?: Record<string, unknown>;
  components?: { schemas?: Record<string, unknown> };
}): string {
  const ops: string[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item as Record<string, Operation>)) {
      ops.push(`<section id="${esc(op.operationId ?? `${method}-${path}`)}">
<h3><span class="m ${esc(method)}">${esc(method.toUpperCase())}</span> <code>${esc(path)}</code></h3>
<p><strong>${esc(op.summary ?? '')}</strong></p>${paragraphs(op.description)}
${params(op.parameters)}${body(op.requestBody)}${responses(op.responses)}</section>`);
    }
  }
  const schemas = Object.entries(doc.components?.schemas ?? {})
    .map(([name, s]) => `<section id="schema-${esc(name)}"><h3>${esc(name)}</h3><pre>${esc(JSON.stringify(s, null, 2))}</pre></section>`)
    .join('\n');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(doc.info.title)} reference</title><style>
body{font:15px/1.5 system-ui,sans-serif;max-width:960px;margin:0 auto;padding:1rem;color:#1d1d1f}
code,pre{font:13px ui-monospace,monospace}pre{background:#f5f5f7;padding:.75rem;overflow:auto;border-radius:6px}
section{border-top:1px solid #ddd;padding:.5rem 0}.m{display:inline-block;min-width:4.5em;font-size:.8em;padding:.1em .4em;border-radius:4px;background:#e8e8ed}
.get{background:#dff3e4}.post{background:#e1ecfb}.patch,.put{background:#fdf1d6}.delete{background:#fbe2e2}
table{border-collapse:collapse;width:100%}td,th{border:1px solid #ddd;padding:.25rem .5rem;text-align:left;vertical-align:top}
</style></head><body><h1>${esc(doc.info.title)}</h1>${paragraphs(doc.info.description)}
<p>Machine-readable: <a href="/api/v1/openapi.json">/api/v1/openapi.json</a> (OpenAPI 3.1).</p>
<h2>Operations</h2>${ops.join('\n')}<h2>Schemas</h2>${schemas}</body></html>`;
}

interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  parameters?: { name: string; in: string; required?: boolean; description?: string; schema?: unknown }[];
  requestBody?: { content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: unknown }> }>;
}

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const paragraphs = (text?: string) =>
  text
    ? text
        .split(/\n\n+/)
        .map((p) => `<p>${esc(p)}</p>`)
        .join('')
    : '';
const schemaText = (s: unknown) => `<pre>${esc(JSON.stringify(s, null, 2))}</pre>`;

function params(list: Operation['parameters']) {
  if (!list?.length) return '';
  const rows = list.map(
    (p) =>
      `<tr><td><code>${esc(p.name)}</code></td><td>${esc(p.in)}</td><td>${p.required ? 'yes' : 'no'}</td><td><code>${esc(JSON.stringify(p.schema ?? {}))}</code> ${esc(p.description ?? '')}</td></tr>`,
  );
  return `<h4>Parameters</h4><table><tr><th>name</th><th>in</th><th>required</th><th>schema</th></tr>${rows.join('')}</table>`;
}

function body(requestBody: Operation['requestBody']) {
  const schema = requestBody?.content?.['application/json']?.schema;
  return schema ? `<h4>Request body</h4>${schemaText(schema)}` : '';
}

function responses(map: Operation['responses']) {
  if (!map) return '';
  const rows = Object.entries(map).map(([status, r]) => {
    const schema = r.content?.['application/json']?.schema;
    return `<tr><td>${esc(status)}</td><td>${esc(r.description ?? '')}${schema ? schemaText(schema) : ''}</td></tr>`;
  });
  return `<h4>Responses</h4><table>${rows.join('')}</table>`;
}
