import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { serviceEnv } from './support/env.js';
import { startGatewayProcess, type GatewayProcess } from './support/gateway-process.js';
import { startHaproxy, type Balancer } from './support/haproxy.js';
import { html, startPageServer } from './support/page-server.js';
import { startService, type ServiceProcess } from './support/processes.js';
import { deleteKeysWithPrefix, testPrefix } from './support/redis.js';
import { startLocalS3, type LocalS3 } from './support/s3-server.js';
import { createAccountWithKey, openTestStores, type CreatedAccount, type TestStores } from './support/test-stores.js';

/**
 * Many gateways (issue 39): two gateway processes behind haproxy, round robin per request with no
 * stickiness, a scraper and a parser worker, uploads in a shared S3 bucket. Whichever gateway
 * answers, the rate limit is one limit, an Idempotency-Key names one request, the window answers
 * with the result, an upload is parsed, and the console's API sees one account; when a gateway
 * dies, haproxy routes around it and no request is lost.
 */
const prefix = testPrefix('many-gateways');
let s3: LocalS3;
let env: Record<string, string>;
let gateways: GatewayProcess[] = [];
let workers: ServiceProcess[] = [];
let balancer: Balancer;
let site: Awaited<ReturnType<typeof startPageServer>>;
let test: TestStores;
let owner: CreatedAccount;

beforeAll(async () => {
  s3 = await startLocalS3();
  env = serviceEnv(prefix, { ...s3.env('gleaner-many-gateways'), PARSER_CONCURRENCY: '1' });
  site = await startPageServer({}, async (req, res) => {
    // /page/<ms>/<n>: a page answered after ms.
    const ms = Number((req.url ?? '').split('/')[2] ?? 0);
    await new Promise((r) => setTimeout(r, ms));
    await html(`<article><h1>Page ${req.url}</h1><p>${'A paragraph of the article, long enough to be kept. '.repeat(5)}</p></article>`, '<title>Page</title>')(req, res);
  });
  workers = [startService('scraper-worker', env), startService('parser-worker', env)];
  gateways = await Promise.all([startGatewayProcess(env), startGatewayProcess(env), ...workers.map((w) => w.waitFor(/ready/, 90_000))]).then((all) => all.slice(0, 2) as GatewayProcess[]);
  balancer = await startHaproxy(gateways.map((g) => `127.0.0.1:${g.port}`));
  test = openTestStores(prefix, env.GLEANER_SECRET);
  owner = await createAccountWithKey(test.stores, 'owner', { ratePerMinute: 10_000 });
}, 120_000);

afterAll(async () => {
  await balancer?.stop();
  await Promise.all([...gateways.map((g) => g.process.kill()), ...workers.map((w) => w.kill())]);
  await site?.close();
  await s3?.stop();
  await test?.close();
  await deleteKeysWithPrefix(prefix);
});

function submit(apiKey: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${balancer.url}/web-scrapper/`, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

/** Requests each gateway served (its own counter), read from it directly. */
async function served(g: GatewayProcess): Promise<number> {
  const text = await fetch(`${g.url}/metrics`).then((r) => r.text());
  return text
    .split('\n')
    .filter((l) => l.startsWith('gleaner_http_request_duration_seconds_count') && !/route="\/(metrics|readyz|healthz)"/.test(l))
    .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);
}

describe('two gateways behind haproxy', () => {
  it('share one rate limit, and both answer', async () => {
    const limited = await createAccountWithKey(test.stores, 'limited', { ratePerMinute: 10 });
    const before = await Promise.all(gateways.map(served));
    const answers = await Promise.all(Array.from({ length: 16 }, (_, n) => submit(limited.apiKey, { url: `${site.url}/page/0/limit-${n}` }).then((r) => r.status)));
    const after = await Promise.all(gateways.map(served));
    expect({ passed: answers.filter((s) => s === 200).length, limited: answers.filter((s) => s === 429).length }).toEqual({ passed: 10, limited: 6 });
    expect(after.map((n, i) => n - before[i] >= 6)).toEqual([true, true]);
  });

  it('answer one request for an Idempotency-Key, whichever gateway gets each submit', async () => {
    const key = `many-gateways-${Date.now()}`;
    const bodies = await Promise.all([0, 1, 2, 3].map(() => submit(owner.apiKey, { url: `${site.url}/page/300/idem` }, { 'idempotency-key': key }).then((r) => r.json() as Promise<{ request_id: string; status: string }>)));
    expect(new Set(bodies.map((b) => b.request_id)).size).toBe(1);
    expect(bodies.map((b) => b.status)).toEqual(['completed', 'completed', 'completed', 'completed']);
  });

  it('answer inside the window with the result, whichever gateway waits', async () => {
    const answers = await Promise.all(Array.from({ length: 6 }, (_, n) => submit(owner.apiKey, { url: `${site.url}/page/1500/window-${n}` }).then(async (r) => ({ status: r.status, body: (await r.json()) as { status: string; text_content: string } }))));
    expect(answers.map((a) => [a.status, a.body.status])).toEqual(Array(6).fill([200, 'completed']));
    expect(answers.every((a) => a.body.text_content.includes('A paragraph of the article'))).toBe(true);
  });

  it('parse an upload one gateway stored, and poll it on any', async () => {
    const form = new FormData();
    form.set('file', new Blob([new TextEncoder().encode('An uploaded note, parsed by whichever worker, stored in the shared bucket.\n')]), 'note.txt');
    form.set('output', 'plain');
    const res = await fetch(`${balancer.url}/documents/parse`, { method: 'POST', headers: { 'x-api-key': owner.apiKey }, body: form });
    const body = (await res.json()) as { requestId: string; status: string };
    expect([200, 202]).toContain(res.status);
    const polls = await Promise.all([0, 1, 2, 3].map(() => fetch(`${balancer.url}/documents/status/${body.requestId}`, { headers: { 'x-api-key': owner.apiKey } }).then((r) => r.json() as Promise<{ status: string; data?: string }>)));
    for (const poll of polls) expect(poll).toMatchObject({ status: 'COMPLETED', data: expect.stringContaining('An uploaded note') });
  });

  it('serve the console and its API as one account, whichever gateway answers', async () => {
    const pages = await Promise.all(gateways.map((g) => fetch(`${g.url}/console`).then((r) => r.text())));
    const script = /src="([^"]+)"/.exec(pages[0])?.[1];
    expect(script).toBeDefined();
    expect(/src="([^"]+)"/.exec(pages[1])?.[1]).toBe(script);
    expect((await Promise.all([0, 1].map(() => fetch(`${balancer.url}${script}`).then((r) => r.status))))).toEqual([200, 200]);
    const created = (await fetch(`${balancer.url}/account/keys`, { method: 'POST', headers: { 'x-api-key': owner.apiKey, 'content-type': 'application/json' }, body: JSON.stringify({ scopes: ['scrape', 'account'], label: 'made through the balancer' }) }).then((r) => r.json())) as { key: string };
    // The new key works on both gateways at once, and both list the account's requests.
    const lists = await Promise.all(gateways.map((g) => fetch(`${g.url}/account/requests`, { headers: { 'x-api-key': created.key } }).then((r) => r.json() as Promise<{ requests: unknown[] }>)));
    expect(lists[0].requests.length).toBeGreaterThanOrEqual(8);
    expect(lists[1].requests).toEqual(lists[0].requests);
  });

  it('route around a gateway that dies: no submit is lost', async () => {
    const answers: Promise<number>[] = [];
    for (let n = 0; n < 20; n++) {
      if (n === 5) await gateways[0].process.kill('SIGKILL');
      answers.push(submit(owner.apiKey, { url: `${site.url}/page/0/failover-${n}` }).then((r) => r.status, () => 0));
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(await Promise.all(answers)).toEqual(Array(20).fill(200));
  });
});
