import { HTTP_METHODS, type HttpMethod, type MediaType, type OpenApiDocument, type Operation, type Parameter, type Reference, type Response, type Schema } from './openapi-types.js';

/**
 * Renders the OpenAPI document as one self-contained HTML page: no script, no remote asset, one
 * stylesheet from the same origin, so it works offline and under helmet's default CSP.
 */
export function renderDocsPage(doc: OpenApiDocument, stylesheetHref: string): string {
  const operations = listOperations(doc);
  const byTag = doc.tags.map((tag) => ({ tag, ops: operations.filter((o) => o.operation.tags[0] === tag.name) }));
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(doc.info.title)} reference</title>
<link rel="stylesheet" href="${esc(stylesheetHref)}">
</head>
<body>
<div class="layout">
<nav aria-label="Endpoints">
<a href="#top"><strong>${esc(doc.info.title)}</strong></a>
${byTag.map(({ tag, ops }) => `<h2>${esc(tag.name)}</h2><ul>${ops.map((o) => `<li><a href="#${anchor(o)}"><span class="type">${o.method.toUpperCase()}</span> ${esc(o.path)}</a></li>`).join('')}</ul>`).join('\n')}
<h2>Schemas</h2>
<ul>${Object.keys(doc.components.schemas).map((name) => `<li><a href="#schema-${esc(name)}">${esc(name)}</a></li>`).join('')}</ul>
</nav>
<main id="top">
<header><h1>${esc(doc.info.title)}</h1><span class="version">version ${esc(doc.info.version)} · OpenAPI ${esc(doc.openapi)} · <a href="/openapi.json">openapi.json</a></span></header>
<div class="intro">${paragraphs(doc.info.description ?? '')}</div>
${renderSecurity(doc)}
${byTag.map(({ tag, ops }) => `<section class="tag" id="tag-${slug(tag.name)}"><h2>${esc(tag.name)}</h2><p>${esc(tag.description)}</p>${ops.map((o) => renderOperation(doc, o)).join('\n')}</section>`).join('\n')}
<section class="tag" id="schemas"><h2>Schemas</h2>
${Object.entries(doc.components.schemas).map(([name, schema]) => renderSchema(name, schema)).join('\n')}
</section>
</main>
</div>
</body>
</html>
`;
}

interface ListedOperation {
  method: HttpMethod;
  path: string;
  operation: Operation;
}

function listOperations(doc: OpenApiDocument): ListedOperation[] {
  const out: ListedOperation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (operation) out.push({ method, path, operation });
    }
  }
  return out;
}

function renderSecurity(doc: OpenApiDocument): string {
  const rows = Object.entries(doc.components.securitySchemes).map(([name, s]) => {
    const how = s.type === 'apiKey' ? `header <code>${esc(s.name)}</code>` : `<code>Authorization: ${esc(s.scheme === 'bearer' ? 'Bearer' : s.scheme)} &lt;token&gt;</code>`;
    return `<tr><td><code>${esc(name)}</code></td><td>${how}</td><td>${esc(s.description)}</td></tr>`;
  });
  return `<section class="tag" id="authentication"><h2>Authentication</h2><table><thead><tr><th class="narrow">Scheme</th><th class="wide">Send</th><th>Notes</th></tr></thead><tbody>${rows.join('')}</tbody></table></section>`;
}

function renderOperation(doc: OpenApiDocument, { method, path, operation }: ListedOperation): string {
  const parameters = (operation.parameters ?? []).map((p) => resolve<Parameter>(doc, p));
  const body = operation.requestBody?.content['application/json'];
  const auth = (operation.security ?? []).flatMap((req) => Object.keys(req));
  return `<section class="op${operation.deprecated ? ' deprecated' : ''}" id="${anchor({ method, path, operation })}" data-method="${method.toUpperCase()}" data-path="${esc(path)}">
<h3><span class="method method-${method}">${method.toUpperCase()}</span> <code class="path">${esc(path)}</code>${operation.deprecated ? ' <span class="badge deprecated">deprecated</span>' : ''}</h3>
<p class="summary">${esc(operation.summary)}</p>
${operation.description ? `<p>${esc(operation.description)}</p>` : ''}
<p class="auth">Authentication: ${auth.length ? auth.map((a) => `<a href="#authentication">${esc(a)}</a>`).join(', ') : 'none'}</p>
${parameters.length ? renderParameters(parameters) : ''}
${body ? renderRequestBody(body) : ''}
${renderResponses(doc, operation)}
</section>`;
}

function renderParameters(parameters: Parameter[]): string {
  const rows = parameters.map(
    (p) => `<tr><td><code>${esc(p.name)}</code>${p.required ? ' <span class="required">required</span>' : ''}</td><td>${esc(p.in)}</td><td>${typeOf(p.schema)}</td><td>${esc(p.description)}${p.example !== undefined ? `<br>Example: <code>${esc(String(p.example))}</code>` : ''}</td></tr>`,
  );
  return `<h4>Parameters</h4><table><thead><tr><th class="mid">Name</th><th class="narrow">In</th><th class="mid">Type</th><th>Description</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function renderRequestBody(body: MediaType): string {
  const examples = Object.values(body.examples ?? {})
    .map((e) => `<h5>${esc(e.summary ?? 'Example')}</h5><pre class="example"><code>${esc(JSON.stringify(e.value, null, 2))}</code></pre>`)
    .join('');
  return `<h4>Request body <span class="type">application/json · ${typeOf(body.schema)}</span></h4>${examples}`;
}

function renderResponses(doc: OpenApiDocument, operation: Operation): string {
  const rows = Object.entries(operation.responses).map(([status, r]) => {
    const response = resolve<Response>(doc, r);
    const media = Object.entries(response.content ?? {});
    const shape = media.map(([type, m]) => `<span class="type">${esc(type)}</span> ${typeOf(m.schema)}`).join('<br>');
    const example = media.flatMap(([, m]) => Object.values(m.examples ?? {})).map((e) => `<pre><code>${esc(JSON.stringify(e.value, null, 2))}</code></pre>`).join('');
    return `<tr><td class="status">${esc(status)}</td><td>${esc(response.description)}${example}</td><td>${shape || '<span class="type">no body</span>'}</td></tr>`;
  });
  return `<h4>Responses</h4><table><thead><tr><th class="narrow">Status</th><th>Meaning</th><th class="wide">Body</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function renderSchema(name: string, schema: Schema): string {
  const rows = Object.entries(schema.properties ?? {}).map(
    ([prop, s]) =>
      `<tr><td><code>${esc(prop)}</code>${schema.required?.includes(prop) ? ' <span class="required">required</span>' : ''}</td><td>${typeOf(s)}</td><td>${esc(s.description ?? '')}${s.default !== undefined ? ` Default <code>${esc(JSON.stringify(s.default))}</code>.` : ''}</td></tr>`,
  );
  const table = rows.length ? `<table><thead><tr><th class="mid">Field</th><th class="mid">Type</th><th>Description</th></tr></thead><tbody>${rows.join('')}</tbody></table>` : `<p>${typeOf(schema)}</p>`;
  return `<section class="schema" id="schema-${esc(name)}"><h3>${esc(name)}</h3>${schema.description ? `<p>${esc(schema.description)}</p>` : ''}${table}</section>`;
}

/** A short, linked type expression: `array of PageLink`, `"plain" | "markdown"`, `map of string`. */
function typeOf(schema: Schema): string {
  if (schema.$ref) {
    const name = schema.$ref.split('/').at(-1)!;
    return `<a class="type" href="#schema-${esc(name)}">${esc(name)}</a>`;
  }
  if (schema.oneOf) return `one of ${schema.oneOf.map(typeOf).join(' | ')}`;
  if (schema.anyOf) return `any of ${schema.anyOf.map(typeOf).join(' | ')}`;
  if (schema.const !== undefined) return `<span class="type">${esc(JSON.stringify(schema.const))}</span>`;
  if (schema.enum) return `<span class="type">${schema.enum.map((v) => esc(JSON.stringify(v))).join(' | ')}</span>`;
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.includes('array')) return `<span class="type">array of</span> ${schema.items ? typeOf(schema.items) : 'any'}`;
  if (types.includes('object') && typeof schema.additionalProperties === 'object' && !schema.properties) return `<span class="type">map of</span> ${typeOf(schema.additionalProperties)}`;
  const format = schema.format ? ` (${esc(schema.format)})` : '';
  return `<span class="type">${types.length ? esc(types.join(' | ')) : 'any'}${format}</span>`;
}

function resolve<T>(doc: OpenApiDocument, value: T | Reference): T {
  if (typeof value !== 'object' || value === null || !('$ref' in value)) return value as T;
  let target: unknown = doc;
  for (const part of (value as Reference).$ref.replace(/^#\//, '').split('/')) target = (target as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  return target as T;
}

const anchor = (o: ListedOperation) => `op-${o.operation.operationId}`;
const slug = (text: string) => text.toLowerCase().replace(/[^a-z0-9]+/g, '-');
const paragraphs = (text: string) => text.split(/\n{2,}/).map((p) => `<p>${esc(p)}</p>`).join('');

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
