// /docs: a self-contained HTML page rendered from the generated OpenAPI document (no CDN, no script),
// so it works on a machine without internet and always matches the route schemas.

interface SchemaLike {
  type?: string | string[];
  properties?: Record<string, SchemaLike>;
  required?: string[];
  items?: SchemaLike;
  anyOf?: SchemaLike[];
  enum?: unknown[];
  description?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  format?: string;
}

interface Operation {
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: { name: string; in: string; required?: boolean; description?: string; schema?: SchemaLike }[];
  requestBody?: { content?: Record<string, { schema?: SchemaLike }> };
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: SchemaLike }> }>;
}

export interface OpenApiDoc {
  info?: { title?: string; description?: string; version?: string };
  paths?: Record<string, Record<string, Operation>>;
}

const esc = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function typeOf(s: SchemaLike | undefined): string {
  if (!s) return '';
  if (s.anyOf) return s.anyOf.map(typeOf).join(' | ');
  if (s.enum) return s.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (s.type === 'array') return `${typeOf(s.items)}[]`;
  const t = Array.isArray(s.type) ? s.type.join(' | ') : (s.type ?? 'any');
  return s.format ? `${t} (${s.format})` : t;
}

function rules(s: SchemaLike): string {
  const r: string[] = [];
  if (s.minLength !== undefined || s.maxLength !== undefined) r.push(`length ${s.minLength ?? 0}–${s.maxLength ?? '∞'}`);
  if (s.minimum !== undefined || s.maximum !== undefined) r.push(`${s.minimum ?? '−∞'}…${s.maximum ?? '∞'}`);
  return r.join(', ');
}

function schemaTable(s: SchemaLike | undefined, depth = 0): string {
  if (!s || depth > 4) return '';
  const obj = s.type === 'array' ? s.items : s;
  if (!obj?.properties) return `<p><code>${esc(typeOf(s))}</code></p>`;
  const req = new Set(obj.required ?? []);
  const rows = Object.entries(obj.properties)
    .map(([name, p]) => {
      const nested = p.properties || p.items?.properties ? `<details><summary>fields</summary>${schemaTable(p, depth + 1)}</details>` : '';
      return `<tr><td><code>${esc(name)}</code></td><td><code>${esc(typeOf(p))}</code></td><td>${req.has(name) ? 'yes' : ''}</td><td>${esc(rules(p))} ${esc(p.description ?? '')}${nested}</td></tr>`;
    })
    .join('');
  return `<table><thead><tr><th>field</th><th>type</th><th>required</th><th>rules</th></tr></thead><tbody>${rows}</tbody></table>`;
}

export function renderDocsPage(doc: OpenApiDoc): string {
  const ops: string[] = [];
  for (const [path, methods] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(methods)) {
      const params = (op.parameters ?? [])
        .map((p) => `<li><code>${esc(p.name)}</code> (${esc(p.in)}${p.required ? ', required' : ''}) <code>${esc(typeOf(p.schema))}</code> ${esc(p.description ?? '')}</li>`)
        .join('');
      const body = op.requestBody?.content?.['application/json']?.schema;
      const responses = Object.entries(op.responses ?? {})
        .map(([code, r]) => {
          const schema = r.content ? Object.values(r.content)[0]?.schema : undefined;
          return `<h4>${esc(code)} ${esc(r.description ?? '')}</h4>${code.startsWith('2') ? schemaTable(schema) : ''}`;
        })
        .join('');
      const id = `${method}-${path}`.replace(/[^A-Za-z0-9]+/g, '-');
      ops.push(
        `<section id="${esc(id)}"><h2><span class="m">${esc(method.toUpperCase())}</span> <code>${esc(path)}</code></h2>` +
          `${op.summary ? `<p><strong>${esc(op.summary)}</strong></p>` : ''}${op.description ? `<p>${esc(op.description)}</p>` : ''}` +
          `${params ? `<h3>Parameters</h3><ul>${params}</ul>` : ''}` +
          `${body ? `<h3>Request body</h3>${schemaTable(body)}` : ''}<h3>Responses</h3>${responses}</section>`,
      );
    }
  }
  const title = esc(doc.info?.title ?? 'API');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${title} API reference</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:960px;margin:2rem auto;padding:0 1rem;color:#1a1a1a}
code{background:#f3f3f3;padding:0 .25em;border-radius:3px}table{border-collapse:collapse;width:100%;margin:.5rem 0}
td,th{border:1px solid #ddd;padding:.25rem .5rem;text-align:left;vertical-align:top}section{border-top:1px solid #ccc;margin-top:2rem}
.m{display:inline-block;min-width:4em;color:#fff;background:#2d5fa8;border-radius:3px;padding:0 .4em;font-size:.8em}</style></head>
<body><h1>${title} API reference</h1><p>${esc(doc.info?.description ?? '')}</p>
<p>Machine-readable: <a href="/api/v1/openapi.json">/api/v1/openapi.json</a> (OpenAPI 3, generated from the route schemas).</p>
${ops.join('\n')}</body></html>`;
}
