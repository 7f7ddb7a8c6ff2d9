import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import type http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, type CallToolResult, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { startFakeAnthropic, type AnthropicScript, type FakeProvider } from '../../../tests/fakes/llm-providers.js';
import { createKeyWithCli, gleanerCli } from '../../../tests/support/cli.js';
import { serviceEnv } from '../../../tests/support/env.js';
import { startGatewayProcess, type GatewayProcess } from '../../../tests/support/gateway-process.js';
import { handWrittenPdf } from '../../../tests/support/hand-written-pdf.js';
import { html, startPageServer } from '../../../tests/support/page-server.js';
import { jsonLines, REPO_ROOT, startService, type ServiceProcess } from '../../../tests/support/processes.js';
import { deleteKeysWithPrefix, testPrefix } from '../../../tests/support/redis.js';
import { waitFor } from '../../../tests/support/webhook-receiver.js';
import { reportFigures } from '../../../tests/support/figures.js';
import { STDIO_VARIABLES } from '../src/stdio.js';

/**
 * The MCP server against a real Gleaner: gateway, scraper-worker and parser-worker processes on
 * real Redis, pages and documents served by a local HTTP server. Each test runs on both
 * transports, driven by the SDK's own client: stdio (the `gleaner-mcp` bin of the tarball `pnpm
 * pack` makes, installed as npm would) and Streamable HTTP (the gateway's /mcp). The 2 s window
 * makes slow work answer 202 so the tools follow it on the status endpoints; tools poll every 300 ms.
 */
const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const prefix = testPrefix('mcp');
const POLL_MS = 300;
const env = serviceEnv(prefix, { SYNC_WINDOW_MS: '2000', MCP_POLL_MS: String(POLL_MS), PARSER_CONCURRENCY: '2' });
const LINE = 'the quick brown fox jumps over the lazy dog.';
/**
 * Enough pages that parsing outlasts a status read's one-second wait (the client's long poll):
 * 600 were parsed within one on a fast host under Node 24, and the call saw no page count.
 */
const BIG_PAGES = 2000;
const bigPdf = handWrittenPdf(Array.from({ length: BIG_PAGES }, (_, p) => Array.from({ length: 40 }, (_, l) => `Sheet ${p + 1} row ${l + 1}: ${LINE}`)));
const reportPdf = handWrittenPdf([['Quarterly report', 'Revenue grew by 12 percent.'], ['Costs', 'Costs fell by 3 percent.'], ['Outlook', 'The outlook is stable.']]);
const longArticle = Array.from({ length: 40 }, (_, i) => `<p>Paragraph ${i + 1}: ${LINE} ${LINE}</p>`).join('');
const gallery = `${longArticle}<ul>${Array.from({ length: 300 }, (_, i) => `<li><a href="/gallery/item-${i}">Gallery item ${i}, with a caption long enough to count</a></li>`).join('')}</ul>${Array.from({ length: 150 }, (_, i) => `<img src="/gallery/photo-${i}.jpg" alt="Photo ${i} of the harbour at dusk">`).join('')}`;
/** The slow page answers after 2.5 s: past the 2 s window. */
const SLOW_PAGE_MS = 2_500;
/** A small site to crawl and map: /site/ links to its pages, each linking to the next. */
const SITE_PAGES = 6;
const sitePage = (n: number) =>
  html(
    `<article><h1>Site page ${n}</h1>${Array.from({ length: 8 }, (_, i) => `<p>Page ${n}, paragraph ${i + 1}: ${LINE} ${LINE}</p>`).join('')}<p><a href="/site/p${(n + 1) % SITE_PAGES}">Next page</a> <a href="/site/">Home</a></p></article>`,
    `<title>Site page ${n}</title>`,
  );
/** A slow site: its pages answer after 1.5 s each, so a crawl of it is caught running. */
const SLOW_SITE_PAGES = 12;

let pages: Awaited<ReturnType<typeof startPageServer>>;
let gateway: GatewayProcess;
const workers: ServiceProcess[] = [];
let apiKey: string;
let parseOnlyKey: string;
let anthropic: FakeProvider<AnthropicScript>;
/** Responses of /docs/endless.pdf still open: it never ends while the test runs. */
const endless = new Set<http.ServerResponse>();
/** Where the packed tarball is installed; its bin is what the stdio transport runs. */
let installed: { dir: string; bin: string; tarball: string };

/**
 * `pnpm --filter @gleaner/mcp-server tarball` (build, then `pnpm pack` of dist/), installed as npm
 * installs it: the tarball's files in node_modules/gleaner-mcp, its dependencies beside it at the
 * exact versions its manifest names (the workspace's own copies: tests download nothing).
 */
function installPackedTarball(): typeof installed {
  const packed = spawnSync('pnpm', ['tarball'], { cwd: packageRoot, encoding: 'utf8' });
  expect({ status: packed.status, stderr: packed.stderr }).toEqual({ status: 0, stderr: '' });
  const manifest = JSON.parse(readFileSync(path.join(packageRoot, 'dist/package.json'), 'utf8')) as { name: string; version: string; bin: Record<string, string>; dependencies: Record<string, string> };
  const tarball = path.join(packageRoot, `${manifest.name}-${manifest.version}.tgz`);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gleaner-mcp-installed-'));
  const home = path.join(dir, 'node_modules', manifest.name);
  mkdirSync(home, { recursive: true });
  const untar = spawnSync('tar', ['-xzf', tarball, '-C', home, '--strip-components=1'], { encoding: 'utf8' });
  expect(untar.status).toBe(0);
  for (const [dependency, version] of Object.entries(manifest.dependencies)) {
    const source = realpathSync(path.join(packageRoot, 'node_modules', dependency));
    expect({ dependency, version: (JSON.parse(readFileSync(path.join(source, 'package.json'), 'utf8')) as { version: string }).version }).toEqual({ dependency, version });
    mkdirSync(path.dirname(path.join(dir, 'node_modules', dependency)), { recursive: true });
    symlinkSync(source, path.join(dir, 'node_modules', dependency));
  }
  return { dir, bin: path.join(home, manifest.bin['gleaner-mcp']), tarball };
}

beforeAll(async () => {
  installed = installPackedTarball();
  pages = await startPageServer({
    '/article': html(
      '<article><h1>Harbour news</h1><p>The harbour reopened on Monday after a week of storms, and the first ferries left at dawn.</p><p>Fishermen said the damage was smaller than feared. <a href="/timetable">Ferry timetable</a> and <a href="https://example.org/storms">storm report</a>.</p><img src="/ferry.jpg" alt="The first ferry"></article>',
      '<title>Harbour news</title><meta name="description" content="The harbour reopened.">',
    ),
    '/long': html(`<article><h1>Long read</h1>${longArticle}</article>`, '<title>Long read</title>'),
    '/gallery': html(`<article><h1>Gallery</h1>${gallery}</article>`, '<title>Gallery</title>'),
    '/slow': async (_req, res) => {
      await new Promise((r) => setTimeout(r, SLOW_PAGE_MS));
      html('<article><h1>Slow news</h1><p>The slow page finally arrived, well after the window had closed.</p></article>', '<title>Slow news</title>')(_req, res);
    },
    '/prices': html('<h1>Prices</h1><table class="prices"><tr><td>Apples</td><td>2.10</td></tr><tr><td>Pears</td><td>3.40</td></tr></table><p class="note">Prices include tax.</p>', '<title>Prices</title>'),
    '/docs/notes.txt': (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('Meeting notes:\nThe budget was approved.\fSecond page: the picnic is on Friday.\n'),
    '/docs/report.pdf': (_req, res) => res.writeHead(200, { 'content-type': 'application/pdf' }).end(reportPdf),
    '/docs/one-long-page.txt': (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(Array.from({ length: 60 }, (_, i) => `Line ${i + 1}: ${LINE}`).join('\n')),
    // Slow: the file comes after 2.5 s (past the 2 s window), then takes a while to parse.
    '/docs/big.pdf': async (_req, res) => {
      await new Promise((r) => setTimeout(r, 2500));
      res.writeHead(200, { 'content-type': 'application/pdf' }).end(bigPdf);
    },
    '/site/': html(`<h1>Site home</h1><ul>${Array.from({ length: SITE_PAGES }, (_, n) => `<li><a href="/site/p${n}">Page ${n}</a></li>`).join('')}</ul>`, '<title>Site home</title>'),
    ...Object.fromEntries(Array.from({ length: SITE_PAGES }, (_, n) => [`/site/p${n}`, sitePage(n)])),
    '/slow-site/': html(`<h1>Slow site</h1>${Array.from({ length: SLOW_SITE_PAGES }, (_, n) => `<a href="/slow-site/p${n}">Slow page ${n}</a>`).join(' ')}`, '<title>Slow site</title>'),
    ...Object.fromEntries(
      Array.from({ length: SLOW_SITE_PAGES }, (_, n) => [
        `/slow-site/p${n}`,
        async (req: http.IncomingMessage, res: http.ServerResponse) => {
          await new Promise((r) => setTimeout(r, 1_500));
          html(`<article><h1>Slow page ${n}</h1><p>${LINE}</p></article>`, `<title>Slow page ${n}</title>`)(req, res);
        },
      ]),
    ),
    // Never finishes: a parse of it runs until the test is over.
    '/docs/endless.pdf': (_req, res) => {
      endless.add(res);
      res.writeHead(200, { 'content-type': 'application/pdf' }).write('%PDF-1.4\n');
    },
  });
  gateway = await startGatewayProcess({ ...env, LOG_LEVEL: 'info' });
  workers.push(startService('scraper-worker', env), startService('parser-worker', env));
  await Promise.all(workers.map((w) => w.waitFor(/ready/)));
  apiKey = await createKeyWithCli('mcp-account', env);
  parseOnlyKey = await createKeyWithCli('mcp-account', env, 'parse');
  // Every submit a tool makes counts: the default 60 a minute is not enough for the whole file.
  await gleanerCli(['accounts', 'set-rate-limit', 'mcp-account', '100000'], env);
  // LLM mode: the scraper-worker calls this stand-in of the Anthropic Messages API.
  anthropic = await startFakeAnthropic();
  await gleanerCli(['llm-keys', 'add', '--account', 'mcp-account', '--provider', 'anthropic', '--key', 'sk-ant-test', '--model', 'claude-test-model', '--base-url', anthropic.baseUrl], env);
}, 120_000);

afterAll(async () => {
  if (installed) rmSync(installed.dir, { recursive: true, force: true });
  for (const res of endless) res.destroy();
  await Promise.all([gateway?.process.kill(), ...workers.map((w) => w.kill())]);
  await pages?.close();
  await anthropic?.close();
  await deleteKeysWithPrefix(prefix);
});

type TransportName = 'stdio' | 'streamable http';

/** An SDK client connected over `transport` with `key`. */
async function connect(transport: TransportName, key = apiKey): Promise<Client> {
  const client = new Client({ name: 'gleaner-mcp-test', version: '1.0.0' });
  if (transport === 'stdio') {
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [installed.bin],
        env: { GLEANER_URL: gateway.url, GLEANER_API_KEY: key, GLEANER_MCP_POLL_MS: String(POLL_MS), PATH: process.env.PATH ?? '' },
        stderr: 'pipe',
      }),
    );
  } else {
    await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), { requestInit: { headers: { 'x-api-key': key } } }));
  }
  return client;
}

function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

async function call(client: Client, name: string, args: Record<string, unknown>, onprogress?: (p: Progress) => void): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args }, CallToolResultSchema, { timeout: 120_000, resetTimeoutOnProgress: true, ...(onprogress ? { onprogress } : {}) })) as CallToolResult;
}

/** The gateway's access-log lines for status reads of one request. */
function statusReads(requestId: string): number {
  return jsonLines(gateway.process.output()).filter((l) => l.requestId === requestId && String(l.route).includes('/status/')).length;
}

describe.each<TransportName>(['stdio', 'streamable http'])('over %s', (transport) => {
  let client: Client;
  beforeAll(async () => {
    client = await connect(transport);
  }, 30_000);
  afterAll(async () => {
    await client?.close();
  });

  it('lists the eight tools with precise input schemas and descriptions for a model', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['cancel_crawl', 'crawl', 'get_result', 'map', 'parse_document', 'scrape', 'scrape_many', 'select']);
    for (const tool of tools) {
      expect(tool.description!.length).toBeGreaterThan(80);
      expect(tool.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
    }
    const byName = Object.fromEntries(tools.map((t) => [t.name, t.inputSchema as { required?: string[]; properties: Record<string, Record<string, unknown>> }]));
    expect(byName.scrape.required).toEqual(['url']);
    expect(Object.keys(byName.scrape.properties).sort()).toEqual(['format', 'include_images', 'include_links', 'llm_key_id', 'max_length', 'prompt', 'render_js', 'schema', 'timeout', 'url', 'use_cache', 'wait_for', 'wait_for_selector']);
    expect(byName.scrape.properties.format).toMatchObject({ enum: ['markdown', 'text'], default: 'markdown' });
    expect(byName.scrape.properties.max_length).toMatchObject({ type: 'integer', minimum: 100, maximum: 200_000, default: 20_000 });
    expect(byName.scrape_many.properties.urls).toMatchObject({ type: 'array', minItems: 1, maxItems: 20 });
    // scrape and scrape_many take the same API options, from one place.
    for (const option of ['use_cache', 'prompt', 'schema', 'llm_key_id']) expect(byName.scrape_many.properties[option]).toEqual(byName.scrape.properties[option]);
    expect(byName.select.required).toEqual(['url', 'selector']);
    expect(byName.parse_document.properties.type).toMatchObject({ enum: ['pdf', 'doc', 'docx', 'jpg', 'jpeg', 'png', 'txt', 'tiff', 'tif', 'heic', 'xlsx', 'xls', 'ods', 'csv', 'pptx', 'odp', 'odt', 'rtf', 'epub', 'html', 'md'] });
    expect(byName.get_result.properties.kind).toMatchObject({ enum: ['scrape', 'parse_document', 'select', 'crawl', 'batch', 'map'] });
    expect(byName.get_result.properties.cursor).toMatchObject({ type: 'string', pattern: '^\\d{1,9}$' });
    expect(byName.crawl.required).toEqual(['url']);
    expect(byName.crawl.properties.limit).toMatchObject({ type: 'integer', minimum: 1, maximum: 10_000, default: 20 });
    expect(byName.crawl.properties.sitemap).toMatchObject({ enum: ['include', 'skip', 'only'] });
    for (const option of ['include_paths', 'exclude_paths', 'max_depth', 'render_js', 'prompt', 'max_length']) expect(Object.keys(byName.crawl.properties)).toContain(option);
    expect(Object.keys(byName.crawl.properties)).not.toContain('use_cache');
    expect(byName.map.properties.limit).toMatchObject({ type: 'integer', maximum: 30_000, default: 1_000 });
    expect(byName.cancel_crawl.required).toEqual(['request_id']);
    expect(tools.find((t) => t.name === 'cancel_crawl')!.annotations).toMatchObject({ destructiveHint: true, readOnlyHint: false });
    // A JSON Schema pattern has no flags: upper-case IDs must match the pattern itself.
    const idPattern = new RegExp(String(byName.get_result.properties.request_id.pattern));
    expect(['0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', '0190A1B2-C3D4-7E5F-8A9B-0C1D2E3F4A5B'].map((id) => idPattern.test(id))).toEqual([true, true]);
    // The tools that start requests say how to resume one whose call ended first.
    const described = Object.fromEntries(tools.map((t) => [t.name, t.description!]));
    // A crawl goes on when its call ends, and the description says what stops it.
    expect(described.crawl).toMatch(/Cancelling this call, or its timing out, does not stop the crawl: .*cancel_crawl stops it/);
    for (const [name, kind] of [['scrape', 'scrape'], ['scrape_many', 'scrape'], ['parse_document', 'parse_document'], ['crawl', 'crawl'], ['map', 'map']]) {
      expect(described[name]).toMatch(/progress messages? (names|list) the request ID/i);
      expect(described[name]).toContain(`get_result with ${name === 'scrape_many' ? 'a' : 'that'} request_id and kind "${kind}"`);
    }
  });

  it('a call cancelled before Gleaner answered names its request in the first progress message, and get_result reads the result later', async () => {
    const controller = new AbortController();
    const progress: Progress[] = [];
    const running = client.callTool({ name: 'scrape', arguments: { url: `${pages.url}/slow` } }, CallToolResultSchema, {
      signal: controller.signal,
      timeout: 60_000,
      onprogress: (p) => {
        progress.push(p);
        controller.abort('cancelled at the first progress message');
      },
    });
    await expect(running).rejects.toThrow(/cancelled at the first progress message/);
    // Long before the page (2.5 s) or the window (2 s): the id came with the submit's answer.
    expect(progress).toHaveLength(1);
    const id = /^request ([0-9a-f-]{36}): Gleaner is reading /.exec(progress[0].message ?? '')?.[1];
    expect(id).toBeDefined();
    expect(progress[0].message).toContain(`if this call ends first, call get_result with request_id "${id}" and kind "scrape"`);
    await new Promise((r) => setTimeout(r, SLOW_PAGE_MS + 1_000));
    const resumed = textOf(await call(client, 'get_result', { request_id: id!.toUpperCase(), kind: 'scrape' }));
    expect(resumed).toContain('The slow page finally arrived');
    expect(resumed).toContain(`Request ID: ${id}`);
  }, 30_000);

  it('max_length bounds the whole answer, links and images included', async () => {
    const result = textOf(await call(client, 'scrape', { url: `${pages.url}/gallery`, max_length: 1000, include_links: true, include_images: true }));
    expect(result.length).toBeLessThanOrEqual(1000);
    expect(result).toContain('Paragraph 1:');
    expect(result).toMatch(/## Links \(300\)\n- \[Gallery item 0/);
    expect(result).toMatch(/## Images \(150\)\n- !\[Photo 0/);
    expect(result).toMatch(/\(\d+ more not listed: a larger max_length shows more\)/);
    const roomy = textOf(await call(client, 'scrape', { url: `${pages.url}/gallery`, max_length: 30_000, include_links: true, include_images: true }));
    expect(roomy.length).toBeLessThanOrEqual(30_000);
    expect(roomy).toContain('Paragraph 40:');
  });

  it('scrape answers markdown with the title and request id; links and images only on request', async () => {
    const plain = await call(client, 'scrape', { url: `${pages.url}/article` });
    expect(plain.isError).toBeFalsy();
    const text = textOf(plain);
    expect(text).toMatch(/^# Harbour news\nURL: http:\/\/127\.0\.0\.1:\d+\/article\nRequest ID: [0-9a-f-]{36}\nDescription: The harbour reopened\./);
    expect(text).toContain('The harbour reopened on Monday after a week of storms');
    expect(text).toContain('[Ferry timetable]('); // markdown keeps inline links
    expect(text).not.toContain('## Links');

    const rich = textOf(await call(client, 'scrape', { url: `${pages.url}/article`, format: 'text', include_links: true, include_images: true }));
    expect(rich.slice(0, rich.indexOf('## Links'))).toContain('smaller than feared. Ferry timetable and storm report.');
    expect(rich).toContain(`- [Ferry timetable](${pages.url}/timetable) (internal)`);
    expect(rich).toContain('- [storm report](https://example.org/storms) (external)');
    expect(rich).toContain(`## Images (1)\n- ![The first ferry](${pages.url}/ferry.jpg)`);
  });

  it('scrape with prompt and schema answers the JSON the language model extracted', async () => {
    const schema = { type: 'object', properties: { headline: { type: 'string' }, reopened: { type: 'boolean' } }, required: ['headline', 'reopened'] };
    anthropic.enqueue({ output: { headline: 'Harbour news', reopened: true } });
    const result = await call(client, 'scrape', { url: `${pages.url}/article`, prompt: 'Give the headline and whether the harbour reopened.', schema });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toContain('Extracted by the language model (JSON):\n```json\n{\n  "headline": "Harbour news",\n  "reopened": true\n}\n```');
    // The model was given the prompt, the page and the caller's schema.
    const sent = anthropic.requests.at(-1)!;
    expect(sent.rawBody).toContain('Give the headline and whether the harbour reopened.');
    expect(sent.rawBody).toContain('The harbour reopened on Monday');
    expect(sent.rawBody).toContain('"reopened":{"type":"boolean"}');
  });

  it('cuts a long page at max_length with a note, and get_result reads on from there', async () => {
    const first = textOf(await call(client, 'scrape', { url: `${pages.url}/long`, max_length: 1000 }));
    const note = /\[Cut at character ([\d,]+) of ([\d,]+)\. To read on, call get_result with request_id "([0-9a-f-]{36})", kind "scrape" and start_index (\d+)\.\]$/.exec(first);
    expect(note).not.toBeNull();
    const [, cutAt, total, requestId, startIndex] = note!;
    expect(Number(cutAt.replace(/,/g, ''))).toBe(Number(startIndex));
    expect(Number(startIndex)).toBeLessThanOrEqual(1000);
    expect(Number(total.replace(/,/g, ''))).toBeGreaterThan(3000);
    expect(first).toContain('Paragraph 1:');
    expect(first).not.toContain('Paragraph 40:');

    const rest = textOf(await call(client, 'get_result', { request_id: requestId, start_index: Number(startIndex), max_length: 200_000 }));
    expect(rest).toContain(`(From character ${cutAt} of ${total}.)`);
    expect(rest).toContain('Paragraph 40:');
    expect(rest).not.toContain('[Cut at');
    // Nothing lost or repeated at the seam.
    const body = (s: string) => s.slice(s.indexOf('\n\n') + 2);
    const whole = body(textOf(await call(client, 'get_result', { request_id: requestId, kind: 'scrape', max_length: 200_000 })));
    expect(body(first).replace(/\n\n\[Cut at[^\]]*\]$/, '') + body(rest).replace(/^\(From character[^)]*\)\n\n/, '')).toBe(whole);
  });

  it('scrape_many reads pages a few at a time and reports each failure without losing the others', async () => {
    const urls = [`${pages.url}/article`, 'http://no-such-host.invalid/page', `${pages.url}/prices`];
    const result = await call(client, 'scrape_many', { urls, max_length: 300 });
    expect(result.isError).toBeFalsy();
    const text = textOf(result);
    expect(text).toMatch(/^2 of 3 pages read, 1 failed\./);
    const sections = [...text.matchAll(/<page index="(\d)" url="([^"]+)">\n([\s\S]*?)\n<\/page>/g)].map((m) => ({ index: m[1], url: m[2], text: m[3] }));
    expect(sections.map((s) => s.url)).toEqual(urls);
    expect(sections[0].text).toContain('# Harbour news');
    expect(sections[1].text).toBe('Failed: Gleaner answered HTTP 400: E003: the host of url could not be resolved');
    expect(sections[2].text).toContain('Apples');
  });

  it('select returns the text of the elements a CSS selector or XPath matches, HTML on request', async () => {
    const css = textOf(await call(client, 'select', { url: `${pages.url}/prices`, selector: 'table.prices td:first-child' }));
    expect(css).toMatch(/Selector: table\.prices td:first-child\nRequest ID: [0-9a-f-]{36}\n\n## Text of the matched elements\nApples\nPears$/);
    const xpath = textOf(await call(client, 'select', { url: `${pages.url}/prices`, selector: "//p[@class='note']", include_html: true }));
    expect(xpath).toContain('Prices include tax.');
    expect(xpath).toContain('```html\n<p class="note">Prices include tax.</p>\n```');
    const none = textOf(await call(client, 'select', { url: `${pages.url}/prices`, selector: 'h6' }));
    expect(none).toContain('No element matched the selector.');
    const bad = await call(client, 'select', { url: `${pages.url}/prices`, selector: '//p[' });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/^Gleaner answered HTTP 400: /);
  });

  it('parse_document reads a document page by page, and pages picks some of them', async () => {
    const notes = textOf(await call(client, 'parse_document', { url: `${pages.url}/docs/notes.txt`, type: 'txt', format: 'text' }));
    expect(notes).toMatch(/^Document: http:\/\/127\.0\.0\.1:\d+\/docs\/notes\.txt\nType: txt, 2 pages\nRequest ID: [0-9a-f-]{36}\n\n=== Page 1 of 2 ===\n\nMeeting notes:\nThe budget was approved\.\n\n=== Page 2 of 2 ===\n\nSecond page: the picnic is on Friday\./);

    const report = await call(client, 'parse_document', { url: `${pages.url}/docs/report.pdf`, pages: '2-3' });
    const text = textOf(report);
    expect(text).toContain('Type: pdf, 3 pages (showing 2-3)');
    expect(text).not.toContain('Revenue grew');
    expect(text).toMatch(/=== Page 2 of 3 ===\n\nCosts\n+Costs fell by 3 percent\./);
    expect(text).toContain('=== Page 3 of 3 ===\n\nOutlook');

    const requestId = /Request ID: ([0-9a-f-]{36})/.exec(text)![1];
    const again = textOf(await call(client, 'get_result', { request_id: requestId }));
    expect(again).toMatch(new RegExp(`^Document: ${pages.url}/docs/report\\.pdf\nType: pdf, 3 pages\n`));
    expect(again).toContain('Revenue grew by 12 percent.');
  });

  it('pages naming no page is an error giving the page count; a cut answer with pages reads on with get_result in those pages', async () => {
    const none = await call(client, 'parse_document', { url: `${pages.url}/docs/report.pdf`, pages: '7-9' });
    expect(none.isError).toBe(true);
    expect(textOf(none)).toMatch(/^The document has 3 pages: pages "7-9" names none of them \(pages are numbered 1 to 3\)\. Request ID: [0-9a-f-]{36}\.$/);

    // A one-page document asked for its page 1: cut, it reads on in get_result.
    const first = textOf(await call(client, 'parse_document', { url: `${pages.url}/docs/one-long-page.txt`, type: 'txt', pages: '1', max_length: 1000 }));
    expect(first.length).toBeLessThanOrEqual(1000);
    expect(first).toContain('Type: txt, 1 page (showing 1)');
    const note = /\[Cut at character ([\d,]+) of [\d,]+\. To read on, call get_result with request_id "([0-9a-f-]{36})", kind "parse_document", pages "1" and start_index (\d+)\.\]$/.exec(first);
    expect(note).not.toBeNull();
    expect(first).not.toContain('fewer pages');
    const rest = textOf(await call(client, 'get_result', { request_id: note![2], kind: 'parse_document', pages: '1', start_index: Number(note![3]), max_length: 10_000 }));
    expect(rest).toContain(`(From character ${note![1]} of `);
    expect(rest).toContain(`Line 60: ${LINE}`);
    expect(rest).not.toContain('[Cut at');
  });

  it('reports progress while a slow document is fetched and parsed, then answers with its text cut to max_length', async () => {
    const progress: Progress[] = [];
    const result = await call(client, 'parse_document', { url: `${pages.url}/docs/big.pdf`, format: 'text', max_length: 2000 }, (p) => progress.push(p));
    expect(result.isError).toBeFalsy();
    const text = textOf(result);
    expect(text).toContain(`Type: pdf, ${BIG_PAGES} pages`);
    expect(text).toContain(`=== Page 1 of ${BIG_PAGES} ===\n\nSheet 1 row 1: ${LINE}`);
    expect(text).toMatch(/\[Cut at character [\d,]+ of [\d,]+\. To read on, call get_result with request_id "[0-9a-f-]{36}", kind "parse_document" and start_index \d+\.\]$/);
    const requestId = /Request ID: ([0-9a-f-]{36})/.exec(text)![1];

    // Progress from the start, the request id in the first message, then the pages parsed.
    expect(progress.length).toBeGreaterThanOrEqual(3);
    const values = progress.map((p) => p.progress);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    expect(new Set(values).size).toBe(values.length);
    expect(progress[0].message).toBe(`request ${requestId}: Gleaner is fetching ${pages.url}/docs/big.pdf (if this call ends first, call get_result with request_id "${requestId}" and kind "parse_document")`);
    expect(progress.map((p) => p.message)).toContainEqual(expect.stringMatching(new RegExp(`^request ${requestId}: \\d+ of ${BIG_PAGES} pages parsed$`)));
    reportFigures(`${transport}: ${progress.length} progress notifications over ${values.at(-1)} s: ${[...new Set(progress.map((p) => p.message))].join(' | ')}`);
  }, 120_000);

  it('honours cancellation: the tool stops following the request, and the session goes on', async () => {
    const controller = new AbortController();
    let requestId: string | undefined;
    const running = client.callTool({ name: 'parse_document', arguments: { url: `${pages.url}/docs/endless.pdf` } }, CallToolResultSchema, {
      signal: controller.signal,
      timeout: 120_000,
      onprogress: (p) => {
        requestId ??= /^request ([0-9a-f-]{36})/.exec(p.message ?? '')?.[1];
      },
    });
    running.catch(() => undefined);
    // Followed on the status endpoint: the server has read its status at least twice.
    await waitFor(() => (requestId ? statusReads(requestId) : 0), (n) => n >= 2, 30_000);
    controller.abort('the user changed their mind');
    await expect(running).rejects.toThrow(/the user changed their mind/);
    // A read already under way may still land (it waits up to 1 s for the end); then no more, for many poll intervals.
    await new Promise((r) => setTimeout(r, 1_500));
    const afterCancel = statusReads(requestId!);
    await new Promise((r) => setTimeout(r, POLL_MS * 8));
    expect(statusReads(requestId!)).toBe(afterCancel);

    // The request itself goes on in Gleaner, and the session still answers.
    const status = textOf(await call(client, 'get_result', { request_id: requestId!, kind: 'parse_document' }));
    expect(status).toBe(`Document request ${requestId} is still being parsed. Call get_result again in a little while.`);
    // Frees the parser worker's slot for the tests that follow.
    for (const res of endless) res.destroy();
  }, 60_000);

  it('crawl reports its counts as it goes, names its request first, and answers the pages in order within max_length; get_result reads on by cursor to the end', async () => {
    const progress: Progress[] = [];
    const MAX = 3_000;
    const first = textOf(await call(client, 'crawl', { url: `${pages.url}/site/`, limit: 10, include_paths: ['^/site/'], max_length: MAX }, (p) => progress.push(p)));
    const id = /^request ([0-9a-f-]{36}): Gleaner is crawling /.exec(progress[0].message ?? '')?.[1];
    expect(progress[0].message).toBe(`request ${id}: Gleaner is crawling ${pages.url}/site/ (if this call ends first, call get_result with request_id "${id}" and kind "crawl"; cancel_crawl stops it)`);
    expect(first).toMatch(new RegExp(`^# Crawl of ${pages.url}/site/ \\(completed: every page in scope was crawled\\)\nRequest ID: ${id}\nResults: ${SITE_PAGES + 1} pages read, 0 failed, 0 skipped; ${SITE_PAGES + 1} URLs found\n\n## 1\\. Site home\nURL: ${pages.url}/site/\n`));
    // Whole results in order, then where to read on.
    const answers = [first];
    for (let note = /\[Results 1 to (\d+) shown\. To read on, call get_result with request_id "([0-9a-f-]{36})", kind "crawl", cursor "(\d+)"\.\]$/.exec(first); note; ) {
      expect([note[2], note[3]]).toEqual([id, note[1]]);
      // Without kind: found among the kinds tried.
      const next = textOf(await call(client, 'get_result', { request_id: id!, cursor: note[3], max_length: MAX }));
      answers.push(next);
      note = /\[Results \d+ to (\d+) shown\. To read on, call get_result with request_id "([0-9a-f-]{36})", kind "crawl", cursor "(\d+)"\.\]$/.exec(next);
    }
    expect(answers.length).toBeGreaterThan(1);
    expect(answers.at(-1)).toMatch(/\[End of the crawl's results\.\]$/);
    for (const answer of answers) expect(answer.length).toBeLessThanOrEqual(MAX);
    const sections = answers.flatMap((a) => [...a.matchAll(/^## (\d+)\. (.+)$/gm)].map((m) => [Number(m[1]), m[2]]));
    expect(sections.map(([n]) => n)).toEqual(Array.from({ length: SITE_PAGES + 1 }, (_, i) => i + 1));
    expect(sections.map(([, title]) => title).sort()).toEqual(['Site home', ...Array.from({ length: SITE_PAGES }, (_, n) => `Site page ${n}`)].sort());

    // A result longer than the answer is cut inside, and read on from the character the cut names.
    const cut = textOf(await call(client, 'get_result', { request_id: id!, kind: 'crawl', cursor: '2', max_length: 700 }));
    expect(cut.length).toBeLessThanOrEqual(700);
    const inside = /\[Result 3 cut at character ([\d,]+) of ([\d,]+)\. To read on, call get_result with request_id "[0-9a-f-]{36}", kind "crawl", cursor "2" and start_index (\d+)\.\]$/.exec(cut);
    expect(inside).not.toBeNull();
    const rest = textOf(await call(client, 'get_result', { request_id: id!, kind: 'crawl', cursor: '2', start_index: Number(inside![3]), max_length: 20_000 }));
    expect(rest).toContain(`(From result 3, character ${inside![1]}.)`);
    expect(rest).toMatch(/## 4\. Site page/);
  });

  it('reports a running crawl\'s counts; a cancelled crawl call leaves the crawl going in Gleaner; cancel_crawl stops it, and get_result reads what it read', async () => {
    const controller = new AbortController();
    const progress: string[] = [];
    const running = client.callTool({ name: 'crawl', arguments: { url: `${pages.url}/slow-site/`, limit: SLOW_SITE_PAGES + 1, include_paths: ['^/slow-site/'] } }, CallToolResultSchema, {
      signal: controller.signal,
      timeout: 60_000,
      onprogress: (p) => {
        progress.push(p.message ?? '');
        // Cancelled once the counts are reported.
        if (/pages read/.test(p.message ?? '')) controller.abort('the user stopped the agent');
      },
    });
    await expect(running).rejects.toThrow(/the user stopped the agent/);
    const id = /^request ([0-9a-f-]{36}): Gleaner is crawling /.exec(progress[0])?.[1];
    expect(id).toBeDefined();
    expect(progress.at(-1)).toMatch(new RegExp(`^request ${id}: \\d+ pages read, \\d+ failed, \\d+ skipped(, \\d+ queued)?; \\d+ URLs found$`));
    // It goes on: pages keep being read after the call ended.
    const going = await waitFor(() => call(client, 'get_result', { request_id: id!, kind: 'crawl' }).then(textOf), (t) => /Results: [1-9]\d* pages read/.test(t), 20_000);
    expect(going).toMatch(/^# Crawl of .* \(still running\)/);
    const stopped = textOf(await call(client, 'cancel_crawl', { request_id: id!.toUpperCase() }));
    expect(stopped).toMatch(new RegExp(`^The crawl ${id} is stopped\\. Results: \\d+ pages read, .*\\. To read its pages, call get_result with request_id "${id}" and kind "crawl"\\.$`));
    const after = textOf(await call(client, 'get_result', { request_id: id!, kind: 'crawl' }));
    expect(after).toMatch(/^# Crawl of .* \(cancelled: cancelled by the caller\)/);
    expect(after).toMatch(/## 1\. Slow site/);
    expect(after).toMatch(/\[End of the crawl's results\.\]$/);
    // Again: already ended, left as it was.
    expect(textOf(await call(client, 'cancel_crawl', { request_id: id! }))).toContain(`The crawl ${id} had already ended (cancelled: cancelled by the caller).`);
  }, 40_000);

  it('map lists the URLs with their titles, names its request first, and reads on by cursor', async () => {
    const progress: Progress[] = [];
    const first = textOf(await call(client, 'map', { url: `${pages.url}/site/`, include_paths: ['^/site/'], max_length: 300 }, (p) => progress.push(p)));
    const id = /^request ([0-9a-f-]{36}): Gleaner is mapping /.exec(progress[0]?.message ?? '')?.[1];
    expect(progress[0].message).toBe(`request ${id}: Gleaner is mapping ${pages.url}/site/ (if this call ends first, call get_result with request_id "${id}" and kind "map")`);
    expect(first.length).toBeLessThanOrEqual(300);
    expect(first).toMatch(new RegExp(`^# Map of ${pages.url}/site/: ${SITE_PAGES + 1} URLs\nRequest ID: ${id}\n\n- ${pages.url}/site/ \\(Site home\\)\n`));
    const note = /\[URLs 1 to (\d+) of (\d+) shown\. To read on, call get_result with request_id "[0-9a-f-]{36}", kind "map" and cursor "(\d+)"\.\]$/.exec(first);
    expect(note).not.toBeNull();
    const rest = textOf(await call(client, 'get_result', { request_id: id!, kind: 'map', cursor: note![3] }));
    const urls = [first, rest].flatMap((t) => [...t.matchAll(/^- (\S+)/gm)].map((m) => m[1]));
    expect(urls.sort()).toEqual([`${pages.url}/site/`, ...Array.from({ length: SITE_PAGES }, (_, n) => `${pages.url}/site/p${n}`)].sort());
    expect(rest).not.toContain('To read on');
  });

  it("returns Gleaner's error as a tool error for a bad URL, and the session goes on", async () => {
    const unresolvable = await call(client, 'scrape', { url: 'http://no-such-host.invalid/' });
    expect(unresolvable).toEqual({ content: [{ type: 'text', text: 'Gleaner answered HTTP 400: E003: the host of url could not be resolved' }], isError: true });

    const document = await call(client, 'parse_document', { url: 'http://no-such-host.invalid/report.pdf' });
    expect(document.isError).toBe(true);
    expect(textOf(document)).toBe("Gleaner answered HTTP 400: 400-002: Invalid URL format (the host of url could not be resolved)");

    // Refused by the tool's schema before Gleaner is called.
    const notHttp = await call(client, 'scrape', { url: 'ftp://example.com/file' });
    expect(notHttp.isError).toBe(true);
    expect(textOf(notHttp)).toMatch(/Invalid arguments for tool scrape: must be an http:\/\/ or https:\/\/ URL/);

    expect(textOf(await call(client, 'scrape', { url: `${pages.url}/article` }))).toContain('# Harbour news');
  });

  it("a key without the scrape scope gets the API's 403 as a tool error", async () => {
    const limited = await connect(transport, parseOnlyKey);
    try {
      const result = await call(limited, 'scrape', { url: `${pages.url}/article` });
      expect(result).toEqual({
        content: [{ type: 'text', text: "Gleaner answered HTTP 403: E004: API key lacks permission for this API (this API needs a key with the 'scrape' scope; this key has 'parse')" }],
        isError: true,
      });
      expect(textOf(await call(limited, 'parse_document', { url: `${pages.url}/docs/notes.txt` }))).toContain('Meeting notes:');
    } finally {
      await limited.close();
    }
  });
});

describe('/mcp on the gateway', () => {
  const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
  const post = (headers: Record<string, string>, body: unknown = initialize) =>
    fetch(`${gateway.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(body) });

  it('refuses a request without a key, or with an unknown one: 401 with a JSON-RPC error', async () => {
    const none = await post({});
    expect(none.status).toBe(401);
    expect(await none.json()).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: 'E004: Missing API key (send it in the x-api-key header or as Authorization: Bearer <key>)' }, id: null });
    const unknown = await post({ 'x-api-key': 'gl_not_a_key' });
    expect(unknown.status).toBe(401);
    expect(await unknown.json()).toMatchObject({ error: { message: 'E004: Invalid API key' } });

    const client = new Client({ name: 'no-key', version: '1' });
    await expect(client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`)))).rejects.toThrow(/401|E004/);
  });

  it("accepts the key as Authorization: Bearer, and counts /mcp requests in the protocol's own log, ten times the key's limit", async () => {
    const res = await post({ authorization: `Bearer ${apiKey}` });
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers.get('ratelimit-limit')).toBe(String(10 * 100_000));
    expect(res.headers.get('ratelimit-remaining')).not.toBeNull();
    await res.body?.cancel();
  });

  it("keeps a session to the key that opened it: another key's request answers 404, DELETE ends it", async () => {
    const opened = await post({ 'x-api-key': apiKey });
    const sessionId = opened.headers.get('mcp-session-id')!;
    await opened.body?.cancel();
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
    const headers = { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' };
    const foreign = await post({ ...headers, 'x-api-key': parseOnlyKey }, list);
    expect(foreign.status).toBe(404);
    expect(await foreign.json()).toMatchObject({ error: { code: -32001, message: expect.stringMatching(/^Session not found/) } });

    const own = await post({ ...headers, 'x-api-key': apiKey }, list);
    expect(own.status).toBe(200);
    expect(await own.text()).toContain('"name":"parse_document"');

    const ended = await fetch(`${gateway.url}/mcp`, { method: 'DELETE', headers: { ...headers, 'x-api-key': apiKey } });
    expect(ended.status).toBe(200);
    expect((await post({ ...headers, 'x-api-key': apiKey }, list)).status).toBe(404);
  });

  it('a request that is not JSON answers 400 with a JSON-RPC parse error, one over 100 KB 413', async () => {
    const res = await fetch(`${gateway.url}/mcp`, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body: '{"jsonrpc":' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ jsonrpc: '2.0', error: { code: -32700, message: 'E001: Request body is not valid JSON' }, id: null });
    const large = await fetch(`${gateway.url}/mcp`, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { pad: 'x'.repeat(110_000) } }) });
    expect(large.status).toBe(413);
    expect(await large.json()).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: 'E001: Request body exceeds 100 KB' }, id: null });
  });
});

describe('/mcp: what the key is charged for, and shutdown', () => {
  it("counts the tools' submits against the key's limit, not protocol messages or the status reads while tools wait", async () => {
    const LIMIT = 8;
    const key = await createKeyWithCli('mcp-metered', env, 'scrape');
    await gleanerCli(['accounts', 'set-rate-limit', 'mcp-metered', String(LIMIT)], env);
    const client = await connect('streamable http', key);
    try {
      // Far more protocol messages than the key's limit...
      for (let i = 0; i < 3 * LIMIT; i++) await client.listTools();
      // ...then six pages, two of them past the 2 s window (followed on the status endpoint).
      const urls = [`${pages.url}/article`, `${pages.url}/slow`, `${pages.url}/prices`, `${pages.url}/long`, `${pages.url}/slow?second`, `${pages.url}/article?again`];
      const result = await call(client, 'scrape_many', { urls, max_length: 300 });
      expect(textOf(result)).toMatch(/^6 of 6 pages read\./);
    } finally {
      await client.close();
    }
    // Six submits were counted, nothing else: the next request sees what is left of the limit.
    const account = await fetch(`${gateway.url}/account`, { headers: { 'x-api-key': key } });
    expect([account.status, account.headers.get('ratelimit-remaining')]).toEqual([200, String(LIMIT - 6 - 1)]);
  }, 60_000);

  it("a gateway shutting down ends a tool call still running with a tool error naming the shutdown and the request to resume, before it closes", async () => {
    const own = await startGatewayProcess({ ...env, LOG_LEVEL: 'info', SHUTDOWN_DEADLINE_MS: '10000' });
    const client = new Client({ name: 'gleaner-mcp-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${own.url}/mcp`), { requestInit: { headers: { 'x-api-key': apiKey } } }));
    let requestId: string | undefined;
    const running = client.callTool({ name: 'parse_document', arguments: { url: `${pages.url}/docs/endless.pdf` } }, CallToolResultSchema, {
      timeout: 110_000,
      onprogress: (p) => {
        requestId ??= /^request ([0-9a-f-]{36})/.exec(p.message ?? '')?.[1];
      },
    });
    try {
      await waitFor(() => requestId, (id) => id !== undefined, 20_000);
      const signalled = Date.now();
      const stopped = own.process.kill('SIGTERM');
      const result = (await running) as CallToolResult;
      const answeredMs = Date.now() - signalled;
      expect(result).toEqual({
        content: [
          {
            type: 'text',
            text: `Gleaner is shutting down (its gateway is stopping), so this call ends here. What it started goes on in Gleaner: once Gleaner is back, call get_result with request_id "${requestId}" and kind "parse_document".`,
          },
        ],
        isError: true,
      });
      // Well before the client's own timeout: the answer came with the shutdown.
      expect(answeredMs).toBeLessThan(5_000);
      await stopped;
      expect(own.alive()).toBe(false);
      expect(own.process.output()).not.toMatch(/shutdown step failed|shutdown deadline reached/);
    } finally {
      await client.close().catch(() => undefined);
      await own.process.kill('SIGKILL');
      for (const res of endless) res.destroy();
    }
  }, 60_000);
});

describe('the gleaner-mcp package', () => {
  it('is built for publishing: a bin for npx, the SDK and zod as its only dependencies, the workspace client bundled', () => {
    const dist = path.join(packageRoot, 'dist');
    const manifest = JSON.parse(readFileSync(path.join(dist, 'package.json'), 'utf8')) as Record<string, unknown>;
    const source = JSON.parse(readFileSync(path.join(packageRoot, 'package.json'), 'utf8')) as { version: string; dependencies: Record<string, string> };
    expect(manifest).toMatchObject({ name: 'gleaner-mcp', version: source.version, type: 'module', bin: { 'gleaner-mcp': 'cli.js' }, engines: { node: '>=20.19' } });
    expect(manifest.dependencies).toEqual({ '@modelcontextprotocol/sdk': source.dependencies['@modelcontextprotocol/sdk'], zod: source.dependencies.zod });
    // The tarball holds what the bin needs (the stdio tests above run it), its bin executable.
    const listing = spawnSync('tar', ['-tvzf', installed.tarball], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean);
    const files = listing.map((line) => line.split(/\s+/).at(-1)!.replace(/^package\//, ''));
    expect(files.sort()).toEqual(expect.arrayContaining(['README.md', 'cli.js', 'index.js', 'package.json']));
    expect(listing.find((line) => line.endsWith(' package/cli.js'))).toMatch(/^-rwx/);
    expect(readFileSync(installed.bin, 'utf8')).toMatch(/^#!\/usr\/bin\/env node\n/);
    for (const file of files.filter((f) => f.endsWith('.js'))) {
      const code = readFileSync(path.join(installed.dir, 'node_modules/gleaner-mcp', file), 'utf8');
      const imports = [...code.matchAll(/\bfrom\s*"([^"]+)"/g)].map((m) => m[1]).filter((s) => !s.startsWith('.') && !s.startsWith('node:'));
      for (const spec of imports) expect(spec).toMatch(/^(@modelcontextprotocol\/sdk\/|zod\/)/);
    }
  });

  it('runs from a checkout with `pnpm --silent mcp`, which the docs give for clients', async () => {
    const client = new Client({ name: 'gleaner-mcp-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: 'pnpm',
        args: ['--silent', '--dir', REPO_ROOT, 'mcp'],
        env: { GLEANER_URL: gateway.url, GLEANER_API_KEY: apiKey, PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
        stderr: 'pipe',
      }),
    );
    try {
      expect((await client.listTools()).tools).toHaveLength(8);
      expect(textOf(await call(client, 'scrape', { url: `${pages.url}/article` }))).toContain('# Harbour news');
    } finally {
      await client.close();
    }
    const mcpDocs = readFileSync(path.join(REPO_ROOT, 'docs/mcp.md'), 'utf8');
    expect(mcpDocs).toContain('"args": ["--silent", "--dir", "/path/to/gleaner", "mcp"]');
    expect(mcpDocs).toContain('npx -y gleaner-mcp');
  }, 60_000);

  it('without GLEANER_API_KEY, answers initialize with an error giving the reason, then exits with code 2', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [installed.bin], env: { PATH: process.env.PATH ?? '', GLEANER_URL: gateway.url }, stderr: 'pipe' });
    const client = new Client({ name: 'no-key', version: '1' });
    const exited = new Promise<number | null>((resolve) => {
      transport.onclose = () => resolve(null);
    });
    await expect(client.connect(transport)).rejects.toThrow(/gleaner-mcp is not configured: GLEANER_API_KEY is required: a Gleaner API key/);
    await client.close();
    await exited;
    const run = spawnSync(process.execPath, [installed.bin], { env: { PATH: process.env.PATH ?? '' }, encoding: 'utf8', input: '' });
    expect([run.status, run.stdout]).toEqual([2, '']);
    expect(run.stderr).toMatch(/^gleaner-mcp is not configured: GLEANER_API_KEY /);
  });

  it('documents every variable the stdio server reads', () => {
    const docs = [readFileSync(path.join(REPO_ROOT, 'docs/mcp.md'), 'utf8'), readFileSync(path.join(packageRoot, 'README.md'), 'utf8')];
    expect(STDIO_VARIABLES).toContain('GLEANER_MCP_WAIT_MS');
    for (const doc of docs) for (const variable of STDIO_VARIABLES) expect({ variable, documented: doc.includes(`\`${variable}\``) }).toEqual({ variable, documented: true });
  });
});
