import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { serviceEnv } from './support/env.js';
import { errorFormatProblem, type ErrorFamily } from './support/error-formats.js';
import { startGatewayProcess, type GatewayProcess } from './support/gateway-process.js';
import { html, startPageServer } from './support/page-server.js';
import type { ServiceProcess } from './support/processes.js';
import { deleteKeysWithPrefix, testPrefix } from './support/redis.js';
import { SIMULATED_INTERNET_PRELOAD, simulatedInternetEnv, startServiceOnSimulatedInternet, type SimulatedInternet } from './support/simulated-internet.js';
import { createAccountWithKey, openTestStores, type TestStores } from './support/test-stores.js';
import { waitFor } from './support/webhook-receiver.js';

/**
 * SSRF through the HTTP API with private networks NOT allowed. Part one: targets, document URLs
 * and webhook URLs that the gateway must refuse at submit, on every surface. Part two: what only
 * the connection-time guard can catch (a name that resolves differently when the worker connects,
 * a public page redirecting inward), run on a simulated internet: every process gets a DNS table
 * and 93.184.215.14 is routed to a local server (tests/support/simulated-internet-preload.ts).
 */
const prefix = testPrefix('ssrf');
const SECRET = 'ssrf-secret-0123456789abcdef';
const PUBLIC_IP = '93.184.215.14';

/** At submit every name looks public except those meant to be refused there. */
const gatewayView: SimulatedInternet = {
  hosts: {
    'public.gleaner-test': [PUBLIC_IP],
    'rebind.gleaner-test': [PUBLIC_IP],
    'hook-public.gleaner-test': [PUBLIC_IP],
    'hook-rebind.gleaner-test': [PUBLIC_IP],
    'loopback.gleaner-test': ['127.0.0.1'],
    'v6-loopback.gleaner-test': ['::1'],
    'metadata.gleaner-test': ['169.254.169.254'],
    'mixed.gleaner-test': [PUBLIC_IP, '10.0.0.1'],
    'nowhere.gleaner-test': [],
  },
};
/** When workers connect, the rebinding names answer loopback; the public address reaches our local servers. */
const workerView: SimulatedInternet = {
  hosts: {
    'public.gleaner-test': [PUBLIC_IP],
    'rebind.gleaner-test': ['127.0.0.1'],
    'hook-public.gleaner-test': [PUBLIC_IP],
    'hook-rebind.gleaner-test': ['127.0.0.1'],
  },
  nat: { [PUBLIC_IP]: '127.0.0.1' },
};

const env = serviceEnv(prefix, {
  GLEANER_SECRET: SECRET,
  GLEANER_ALLOW_PRIVATE_NETWORKS: 'false',
  DEFAULT_RATE_LIMIT_PER_MINUTE: '100000',
  SCRAPER_CONCURRENCY: '4',
  PARSER_CONCURRENCY: '1',
  WEBHOOK_BACKOFF_BASE_MS: '100',
  WEBHOOK_TIMEOUT_MS: '3000',
});

let site: Awaited<ReturnType<typeof startPageServer>>;
let sitePort: number;
let gateway: GatewayProcess;
const workers: ServiceProcess[] = [];
let test: TestStores;
let tlsDir: string;
let receiver: https.Server;
let receiverPort: number;
const deliveries: Array<{ path: string; body: string }> = [];

beforeAll(async () => {
  site = await startPageServer({
    '/page': html('<article><h1>Simulated public page</h1><p>This page stands for a public website on the internet.</p></article>', '<title>Public</title>'),
    '/doc.txt': (_q, s) => s.writeHead(200, { 'content-type': 'text/plain' }).end('Simulated public document text.'),
    '/secret': html('<p>internal admin page</p>'),
    '/secret.txt': (_q, s) => s.writeHead(200, { 'content-type': 'text/plain' }).end('internal document'),
  }, (req, res) => {
    // /to/<kind>[.txt]: a public page that redirects inward (or, for "public", to another public page).
    const m = /^\/to\/([a-z-]+)(\.txt)?$/.exec(req.url ?? '');
    const port = sitePort;
    const suffix = m?.[2] ? '.txt' : '';
    const targets: Record<string, string> = {
      loopback: `http://127.0.0.1:${port}/secret${suffix}`,
      rebind: `http://rebind.gleaner-test:${port}/secret${suffix}`,
      mapped: `http://[::ffff:127.0.0.1]:${port}/secret${suffix}`,
      decimal: `http://2130706433:${port}/secret${suffix}`,
      metadata: 'http://169.254.169.254/latest/meta-data/',
      file: 'file:///etc/passwd',
      public: `http://public.gleaner-test:${port}/${suffix ? 'doc.txt' : 'page'}`,
    };
    if (!m || !targets[m[1]]) return void res.writeHead(404).end();
    res.writeHead(302, { location: targets[m[1]] }).end();
  });
  sitePort = Number(new URL(site.url).port);

  // An https webhook receiver on 127.0.0.1 with a certificate for the simulated public names,
  // trusted by the dispatcher through NODE_EXTRA_CA_CERTS.
  tlsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-ssrf-tls-'));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(tlsDir, 'key.pem'), '-out', path.join(tlsDir, 'cert.pem'), '-days', '2', '-subj', '/CN=hook-public.gleaner-test', '-addext', 'subjectAltName=DNS:hook-public.gleaner-test,DNS:hook-rebind.gleaner-test'], { stdio: 'ignore' });
  receiver = https.createServer({ key: fs.readFileSync(path.join(tlsDir, 'key.pem')), cert: fs.readFileSync(path.join(tlsDir, 'cert.pem')) }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      deliveries.push({ path: req.url ?? '', body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200).end('{}');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverPort = (receiver.address() as AddressInfo).port;

  test = openTestStores(prefix, SECRET);
  const workerEnv = { ...env, NODE_EXTRA_CA_CERTS: path.join(tlsDir, 'cert.pem') };
  for (const name of ['scraper-worker', 'parser-worker', 'webhook-dispatcher']) workers.push(startServiceOnSimulatedInternet(name, workerEnv, workerView));
  gateway = await startGatewayProcess({ ...env, ...simulatedInternetEnv(gatewayView) }, [SIMULATED_INTERNET_PRELOAD]);
  await Promise.all(workers.map((w) => w.waitFor(/ready/)));
}, 120_000);

afterAll(async () => {
  await Promise.all([gateway?.process.kill(), ...workers.map((w) => w.kill())]);
  await site?.close();
  await new Promise((r) => (receiver ? receiver.close(r) : r(undefined)));
  if (tlsDir) fs.rmSync(tlsDir, { recursive: true, force: true });
  await test?.close();
  await deleteKeysWithPrefix(prefix);
});

async function post(pathname: string, apiKey: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${gateway.url}${pathname}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

// ---------------------------------------------------------------------------------------------
// Part one: refused at submit

const SUBMIT_CASES: Array<[string, string]> = [
  ['loopback', 'http://127.0.0.1/'],
  ['loopback, short form', 'http://127.1/'],
  ['loopback, Redis port', 'http://127.0.0.1:6379/'],
  ['unspecified', 'http://0.0.0.0/'],
  ['unspecified, "0"', 'http://0/'],
  ['localhost', 'http://localhost/'],
  ['LOCALHOST, upper case', 'http://LOCALHOST/'],
  ['localhost., trailing dot', 'http://localhost./'],
  ['loopback, trailing dot', 'http://127.0.0.1./'],
  ['RFC 1918 /8', 'http://10.0.0.1/'],
  ['RFC 1918 /12', 'http://172.16.0.1/'],
  ['RFC 1918 /16', 'http://192.168.1.1/'],
  ['cloud metadata', 'http://169.254.169.254/latest/meta-data/'],
  ['CGNAT', 'http://100.64.0.1/'],
  ['multicast', 'http://224.0.0.1/'],
  ['broadcast', 'http://255.255.255.255/'],
  ['benchmark range', 'http://198.18.0.1/'],
  ['IPv6 loopback', 'http://[::1]/'],
  ['IPv6 unspecified', 'http://[::]/'],
  ['IPv6 unique-local', 'http://[fc00::1]/'],
  ['IPv6 link-local', 'http://[fe80::1]/'],
  ['IPv6 link-local with zone', 'http://[fe80::1%25eth0]/'],
  ['AWS IPv6 metadata', 'http://[fd00:ec2::254]/'],
  ['IPv4-mapped loopback', 'http://[::ffff:127.0.0.1]/'],
  ['IPv4-mapped loopback, hex', 'http://[::ffff:7f00:1]/'],
  ['IPv4-mapped metadata', 'http://[::ffff:a9fe:a9fe]/'],
  ['IPv4-mapped, long form', 'http://[0:0:0:0:0:ffff:127.0.0.1]/'],
  ['IPv4-compatible loopback', 'http://[::127.0.0.1]/'],
  ['NAT64 loopback', 'http://[64:ff9b::7f00:1]/'],
  ['decimal loopback', 'http://2130706433/'],
  ['octal loopback', 'http://0177.0.0.1/'],
  ['octal, whole number', 'http://017700000001/'],
  ['hex loopback', 'http://0x7f.0.0.1/'],
  ['hex, whole number', 'http://0x7f000001/'],
  ['mixed hex last part', 'http://127.0.0.0x1/'],
  ['zero-padded', 'http://127.000.000.001/'],
  ['percent-encoded host', 'http://%31%32%37.0.0.1/'],
  ['circled digits (IDNA)', 'http://①②⑦.⓪.⓪.①/'],
  ['ideographic full stops', 'http://127。0。0。1/'],
  ['user-info trick', 'http://example.com@127.0.0.1/'],
  ['user-info with password', 'http://user:pass@10.0.0.1/'],
  ['fragment trick', 'http://127.0.0.1#@example.com/'],
  ['upper-case scheme', 'HTTP://127.0.0.1/'],
  ['name resolving to loopback', 'http://loopback.gleaner-test/'],
  ['name resolving to IPv6 loopback', 'http://v6-loopback.gleaner-test/'],
  ['name resolving to metadata', 'http://metadata.gleaner-test/'],
  ['name with one private answer among public ones', 'http://mixed.gleaner-test/'],
  ['UNIX socket syntax', 'http://unix:/var/run/docker.sock:/info'],
  ['file:', 'file:///etc/passwd'],
  ['gopher:', 'gopher://127.0.0.1:6379/_INFO'],
  ['ftp:', 'ftp://127.0.0.1/'],
  ['dict:', 'dict://127.0.0.1:6379/info'],
  ['data:', 'data:text/html,<p>hi</p>'],
  ['javascript:', 'javascript:alert(1)'],
  ['ws:', 'ws://127.0.0.1/'],
];

/** Webhooks must be https: the same hosts in https form, so the refusal is about the address. */
const asWebhook = (url: string) => url.replace(/^http:/i, 'https:');
const publicTarget = () => `http://public.gleaner-test:${sitePort}/page`;

interface Surface {
  name: string;
  family: ErrorFamily;
  path: string;
  body: (url: string) => Record<string, unknown>;
  status: number;
  code?: RegExp;
}

const SURFACES: Surface[] = [
  { name: 'scrape target', family: 'scraper', path: '/web-scrapper/', body: (url) => ({ url }), status: 400, code: /^E003: / },
  { name: 'v1 target', family: 'v1', path: '/v1/llm-web-scrapper', body: (url) => ({ url, use_llm: false }), status: 400 },
  { name: 'document URL', family: 'parser', path: '/documents/parse', body: (url) => ({ url, type: 'txt' }), status: 400, code: /^400-002: / },
  { name: 'scrape webhook', family: 'scraper', path: '/web-scrapper/', body: (url) => ({ url: publicTarget(), webhook: asWebhook(url) }), status: 400, code: /^E009: / },
  { name: 'v1 webhook', family: 'v1', path: '/v1/llm-web-scrapper', body: (url) => ({ url: publicTarget(), webhook: asWebhook(url) }), status: 400 },
  { name: 'document webhook', family: 'parser', path: '/documents/parse', body: (url) => ({ url: `http://public.gleaner-test:${sitePort}/doc.txt`, type: 'txt', webhook: asWebhook(url) }), status: 400, code: /^400-003: / },
  { name: 'account webhook subscription', family: 'account', path: '/account/webhooks', body: (url) => ({ url: asWebhook(url) }), status: 400, code: /^E009: / },
];

describe('refused at submit, on every surface', () => {
  let matrix: { apiKey: string; accountId: string };
  beforeAll(async () => {
    matrix = await createAccountWithKey(test.stores, 'submit-matrix');
  });

  it.each(SURFACES.map((s) => [s.name, s] as const))('%s', async (_name, surface) => {
    expect(SUBMIT_CASES.length).toBeGreaterThanOrEqual(30);
    const wrong: string[] = [];
    for (const [name, url] of SUBMIT_CASES) {
      const res = await post(surface.path, matrix.apiKey, surface.body(url));
      const problem = res.status !== surface.status ? `HTTP ${res.status}` : errorFormatProblem(surface.family, res.body, res.status) ?? (surface.code && !surface.code.test(String(res.body.error)) ? `error ${res.body.error}` : null);
      if (problem) wrong.push(`${name} (${url}): ${problem} ${JSON.stringify(res.body).slice(0, 200)}`);
    }
    expect(wrong).toEqual([]);
  }, 60_000);

  it('says why a webhook is refused, in each family\'s format', async () => {
    const reasons: Array<[string, string]> = [
      ['https://loopback.gleaner-test/hook', 'resolves to a private or reserved address, which this deployment does not allow'],
      ['https://mixed.gleaner-test/hook', 'resolves to a private or reserved address, which this deployment does not allow'],
      [`http://hook-public.gleaner-test:${receiverPort}/hook`, 'must use https'],
      ['https://nowhere.gleaner-test/hook', 'could not be resolved'],
    ];
    const target = publicTarget();
    for (const [hook, why] of reasons) {
      const scrape = await post('/web-scrapper/', matrix.apiKey, { url: target, webhook: hook });
      const v1 = await post('/v1/llm-web-scrapper', matrix.apiKey, { url: target, webhook: hook });
      const parse = await post('/documents/parse', matrix.apiKey, { url: `http://public.gleaner-test:${sitePort}/doc.txt`, type: 'txt', webhook: hook });
      const subscription = await post('/account/webhooks', matrix.apiKey, { url: hook });
      expect({ hook, answers: [scrape, v1, parse, subscription].map((a) => [a.status, a.body.error, a.body.details ?? a.body.status_code]) }).toEqual({
        hook,
        answers: [
          [400, expect.stringMatching(new RegExp(`^E009: (webhook ${why}|the host of webhook ${why})$`)), undefined],
          [400, expect.stringMatching(new RegExp(`^(webhook ${why}|the host of webhook ${why})$`)), 400],
          [400, '400-003: Invalid webhook URL', [expect.stringMatching(new RegExp(`^('webhook' ${why}|the host of 'webhook' ${why})$`))]],
          [400, expect.stringMatching(new RegExp(`^E009: (url ${why}|the host of url ${why})$`)), undefined],
        ],
      });
    }
  }, 60_000);

  it('accepted none of them: nothing was queued or counted, no subscription was stored', async () => {
    const usage = await test.stores.usage.read(matrix.accountId);
    expect(usage.requests).toEqual({ scrape: 0, 'scrape-v1': 0, parse: 0, crawl: 0, batch: 0, map: 0 });
    expect(await test.stores.subscriptions.list(matrix.accountId)).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// Part two: only the connection-time guard can refuse these

describe('refused at connection time', () => {
  let apiKey: string;
  beforeAll(async () => {
    apiKey = (await createAccountWithKey(test.stores, 'connect-time')).apiKey;
  });

  it('controls: the simulated public site is reachable through every family, redirects between public pages included', async () => {
    const scrape = await post('/web-scrapper/', apiKey, { url: `http://public.gleaner-test:${sitePort}/page` });
    expect(scrape.status).toBe(200);
    expect(scrape.body.text_content).toContain('stands for a public website');
    const literal = await post('/web-scrapper/', apiKey, { url: `http://${PUBLIC_IP}:${sitePort}/page` });
    expect(literal.status).toBe(200);
    const redirected = await post('/web-scrapper/', apiKey, { url: `http://public.gleaner-test:${sitePort}/to/public` });
    expect(redirected.status).toBe(200);
    expect((redirected.body.meta as Record<string, unknown>).final_url).toBe(`http://public.gleaner-test:${sitePort}/page`);
    const v1 = await post('/v1/llm-web-scrapper', apiKey, { url: `http://public.gleaner-test:${sitePort}/page`, use_llm: false });
    expect(v1.status).toBe(200);
    expect((v1.body.scraped_content as Record<string, string>).text).toContain('stands for a public website');
    const doc = await post('/documents/parse', apiKey, { url: `http://public.gleaner-test:${sitePort}/to/public.txt`, type: 'txt' });
    expect(doc.status).toBe(200);
    expect(doc.body).toMatchObject({ status: 'COMPLETED', data: expect.stringContaining('Simulated public document text') });
  }, 60_000);

  it('DNS rebinding: a name that looked public at submit resolves to loopback when the worker connects', async () => {
    const before = { page: site.hits['/page'] ?? 0, doc: site.hits['/doc.txt'] ?? 0 };
    const url = `http://rebind.gleaner-test:${sitePort}/page`;
    const scrape = await post('/web-scrapper/', apiKey, { url });
    expect(scrape.status).toBe(400);
    expect(scrape.body).toMatchObject({ status: 'failed', error: 'E003: url resolves to a private or reserved address, which this deployment does not allow' });
    const v1 = await post('/v1/llm-web-scrapper', apiKey, { url, use_llm: false });
    expect(v1.status).toBe(400);
    expect(v1.body).toMatchObject({ status_code: 400, error: expect.stringMatching(/private or reserved/) });
    const doc = await post('/documents/parse', apiKey, { url: `http://rebind.gleaner-test:${sitePort}/doc.txt`, type: 'txt' });
    expect(doc.status).toBe(400);
    expect(doc.body.error).toBe('400-002: Invalid URL format');
    // The local server behind 127.0.0.1 would have answered: it was never reached.
    expect({ page: site.hits['/page'] ?? 0, doc: site.hits['/doc.txt'] ?? 0 }).toEqual(before);
  }, 60_000);

  it.each([
    ['to a loopback literal', 'loopback'],
    ['to a name resolving to loopback', 'rebind'],
    ['to IPv4-mapped loopback', 'mapped'],
    ['to decimal loopback', 'decimal'],
    ['to the metadata address', 'metadata'],
    ['to file:', 'file'],
  ])('a public page redirecting %s: the hop is refused in every family', async (_name, kind) => {
    const scrape = await post('/web-scrapper/', apiKey, { url: `http://public.gleaner-test:${sitePort}/to/${kind}` });
    expect([scrape.status, scrape.body.status]).toEqual([400, 'failed']);
    expect(scrape.body.error).toMatch(/^E003: /);
    const v1 = await post('/v1/llm-web-scrapper', apiKey, { url: `http://public.gleaner-test:${sitePort}/to/${kind}`, use_llm: false });
    expect([v1.status, v1.body.status_code]).toEqual([400, 400]);
    const doc = await post('/documents/parse', apiKey, { url: `http://public.gleaner-test:${sitePort}/to/${kind}.txt`, type: 'txt' });
    expect(doc.status).toBe(400);
    expect(doc.body.error).toBe('400-002: Invalid URL format');
    expect(site.hits[`/to/${kind}`]).toBe(2);
    expect(site.hits[`/to/${kind}.txt`]).toBe(1);
    expect(site.hits['/secret'] ?? 0).toBe(0);
    expect(site.hits['/secret.txt'] ?? 0).toBe(0);
  }, 60_000);

  it('webhooks of every kind: a receiver name that rebinds to loopback is refused by the dispatcher; a public one is delivered', async () => {
    const hook = (name: string, family: string) => `https://${name}.gleaner-test:${receiverPort}/${family}`;
    const publicDoc = `http://public.gleaner-test:${sitePort}/doc.txt`;
    // Account-level subscriptions: the subscriber's every scrape is delivered to both.
    const subscriber = await createAccountWithKey(test.stores, 'subscriber');
    const refusedSub = await post('/account/webhooks', subscriber.apiKey, { url: hook('hook-rebind', 'sub-refused'), families: ['scrape'] });
    const deliveredSub = await post('/account/webhooks', subscriber.apiKey, { url: hook('hook-public', 'sub-delivered'), families: ['scrape'] });
    expect([refusedSub.status, deliveredSub.status]).toEqual([201, 201]);

    const refusedScrape = await post('/web-scrapper/', apiKey, { url: publicTarget(), webhook: hook('hook-rebind', 'scrape-refused') });
    const deliveredScrape = await post('/web-scrapper/', apiKey, { url: publicTarget(), webhook: hook('hook-public', 'scrape-delivered') });
    const refusedV1 = await post('/v1/llm-web-scrapper', apiKey, { url: publicTarget(), use_llm: false, webhook: hook('hook-rebind', 'v1-refused') });
    const deliveredV1 = await post('/v1/llm-web-scrapper', apiKey, { url: publicTarget(), use_llm: false, webhook: hook('hook-public', 'v1-delivered') });
    const refusedParse = await post('/documents/parse', apiKey, { url: publicDoc, type: 'txt', webhook: hook('hook-rebind', 'parse-refused') });
    const deliveredParse = await post('/documents/parse', apiKey, { url: publicDoc, type: 'txt', webhook: hook('hook-public', 'parse-delivered') });
    const subscribed = await post('/web-scrapper/', subscriber.apiKey, { url: publicTarget() });
    expect([refusedScrape, deliveredScrape, refusedV1, deliveredV1, refusedParse, deliveredParse, subscribed].map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200, 200]);

    const ended = (state?: { status: string }) => state?.status === 'failed' || state?.status === 'delivered';
    const settled = async (family: 'scrape' | 'scrape-v1' | 'parse', id: string) => waitFor(() => test.stores.records.get(family, id), (r) => ended(r?.webhook), 30_000);
    const [rs, ds, rv, dv, rp, dp] = await Promise.all([
      settled('scrape', refusedScrape.body.request_id as string),
      settled('scrape', deliveredScrape.body.request_id as string),
      settled('scrape-v1', refusedV1.body.request_id as string),
      settled('scrape-v1', deliveredV1.body.request_id as string),
      settled('parse', refusedParse.body.requestId as string),
      settled('parse', deliveredParse.body.requestId as string),
    ]);
    const subs = await waitFor(
      () => test.stores.records.get('scrape', subscribed.body.request_id as string),
      (r) => ended(r?.subscriptionDeliveries?.[refusedSub.body.id as string]) && ended(r?.subscriptionDeliveries?.[deliveredSub.body.id as string]),
      30_000,
    );
    for (const delivered of [ds?.webhook, dv?.webhook, dp?.webhook, subs?.subscriptionDeliveries?.[deliveredSub.body.id as string]]) {
      expect(delivered).toMatchObject({ status: 'delivered', attempts: 1 });
    }
    for (const refused of [rs?.webhook, rv?.webhook, rp?.webhook, subs?.subscriptionDeliveries?.[refusedSub.body.id as string]]) {
      expect(refused).toMatchObject({ status: 'failed', attempts: 1, lastError: expect.stringMatching(/^blocked_address: /) });
    }
    // The receiver behind 127.0.0.1 heard only from the public names.
    expect(deliveries.map((d) => d.path).sort()).toEqual(['/parse-delivered', '/scrape-delivered', '/sub-delivered', '/v1-delivered']);
    const status = await fetch(`${gateway.url}/documents/status/${refusedParse.body.requestId}`, { headers: { 'x-api-key': apiKey } });
    expect(((await status.json()) as Record<string, unknown>).webhookError).toBe('500-003: Webhook delivery failed');
  }, 60_000);
});
