/**
 * Idempotency-Key on submits (issue 24, item 8), through real processes: two gateways, a
 * scraper-worker and a parser-worker on one Redis prefix, pages and documents from a local server.
 * A retry with the same key answers the same request (same id, its result or 202) and starts no
 * second one; the same key with another body is refused (422) in the family's format; a gateway
 * killed while it waits out the window leaves a request the retry, on the other gateway, answers.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { serviceEnv } from './support/env.js';
import { errorFormatProblem, type ErrorFamily } from './support/error-formats.js';
import { startGatewayProcess, untilReady, type GatewayProcess } from './support/gateway-process.js';
import { html, startPageServer } from './support/page-server.js';
import { startService, type ServiceProcess } from './support/processes.js';
import { deleteKeysWithPrefix, keysMatching, testPrefix } from './support/redis.js';
import { createAccountWithKey, openTestStores, type CreatedAccount, type TestStores } from './support/test-stores.js';
import { waitFor } from './support/webhook-receiver.js';

const WINDOW_MS = 3_000;
const prefix = testPrefix('idempotency');
const env = serviceEnv(prefix, { SYNC_WINDOW_MS: String(WINDOW_MS) });

let gateways: GatewayProcess[] = [];
let workers: ServiceProcess[] = [];
let test: TestStores;
let site: Awaited<ReturnType<typeof startPageServer>>;
let alice: CreatedAccount;
let bob: CreatedAccount;

/** A page answered after `ms` (path /slow/<ms>/<anything>), so a request can be caught while it runs. */
function slowPage(req: http.IncomingMessage, res: http.ServerResponse): void {
  const ms = Number((req.url ?? '').split('/')[2]);
  setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><head><title>Slow</title></head><body><p>Slow page after ${ms} ms.</p></body></html>`), ms);
}

beforeAll(async () => {
  site = await startPageServer(
    {
      '/article': html('<article><h1>Gleaning</h1><p>Volunteers gleaned potatoes after the harvest, a paragraph long enough to be the article.</p></article>', '<title>Gleaning</title>'),
      '/note.txt': (_q, s) => s.writeHead(200, { 'content-type': 'text/plain' }).end('A plain note for the parser.\n'),
    },
    (req, res) => {
      if ((req.url ?? '').startsWith('/slow/')) return slowPage(req, res);
      res.writeHead(404).end();
    },
  );
  workers = [startService('scraper-worker', env), startService('parser-worker', env)];
  gateways = await Promise.all([startGatewayProcess(env), startGatewayProcess(env), ...workers.map((w) => w.waitFor(/ready/, 90_000))]).then((all) => all.slice(0, 2) as GatewayProcess[]);
  test = openTestStores(prefix, env.GLEANER_SECRET);
  alice = await createAccountWithKey(test.stores, 'alice', { ratePerMinute: 10_000 });
  bob = await createAccountWithKey(test.stores, 'bob', { ratePerMinute: 10_000 });
}, 120_000);

afterAll(async () => {
  await Promise.all([...gateways.map((g) => g.process.kill()), ...workers.map((w) => w.kill())]);
  await site?.close();
  await test?.close();
  await deleteKeysWithPrefix(prefix);
});

interface Answer {
  status: number;
  body: Record<string, unknown>;
  requestId: string | null;
  replayed: string | null;
}

async function submit(path: string, body: unknown, key: string | undefined, account = alice, gateway = gateways[0]): Promise<Answer> {
  const headers: Record<string, string> = { 'x-api-key': account.apiKey, 'content-type': 'application/json' };
  if (key !== undefined) headers['idempotency-key'] = key;
  const res = await fetch(`${gateway.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, requestId: res.headers.get('x-request-id'), replayed: res.headers.get('idempotent-replayed') };
}

/** Request records of a family under the test prefix (one per request ever started). */
async function recordIds(family: string): Promise<string[]> {
  const keys = await keysMatching(test.redis, `${prefix}:rec:${family}:*`);
  return keys.map((k) => k.slice(k.lastIndexOf(':') + 1)).sort();
}

const uniqueKey = (label: string) => `${label}-${Math.random().toString(36).slice(2)}`;
const idOf = (a: Answer) => String(a.body.request_id ?? a.body.requestId);

describe('the same key and body: the same request', () => {
  it('current scraper: the retry answers the completed request (200, same id and body) and fetches nothing again', async () => {
    const key = uniqueKey('scrape');
    const url = `${site.url}/article`;
    const before = site.hits['/article'] ?? 0;
    const first = await submit('/web-scrapper/', { url, output_type: 'markdown' }, key);
    expect([first.status, first.body.status, first.replayed]).toEqual([200, 'completed', null]);
    // Key order is not part of the body's identity.
    const retry = await submit('/web-scrapper/', { output_type: 'markdown', url }, key, alice, gateways[1]);
    expect([retry.status, retry.replayed, retry.requestId]).toEqual([200, 'true', idOf(first)]);
    expect(retry.body).toEqual(first.body);
    expect((site.hits['/article'] ?? 0) - before).toBe(1);
  });

  it('v1: the retry answers the same request and is not charged a second credit', async () => {
    const key = uniqueKey('v1');
    const account = await createAccountWithKey(test.stores, uniqueKey('v1-credits'), { ratePerMinute: 10_000 });
    const body = { url: `${site.url}/article`, selector: 'h1', use_llm: false };
    const first = await submit('/v1/llm-web-scrapper', body, key, account);
    const retry = await submit('/v1/llm-web-scrapper', body, key, account);
    expect([first.status, retry.status, retry.replayed]).toEqual([200, 200, 'true']);
    expect(retry.body).toEqual(first.body);
    expect((first.body.scraped_content as { text: string }).text).toBe('Gleaning');
    expect((await test.stores.usage.read(account.accountId)).credits_used).toBe(1);
  });

  it('parser: the retry answers the same COMPLETED record', async () => {
    const key = uniqueKey('parse');
    const body = { url: `${site.url}/note.txt`, type: 'txt' };
    const first = await submit('/documents/parse', body, key);
    const retry = await submit('/documents/parse', body, key, alice, gateways[1]);
    expect([first.status, first.body.status, first.body.data]).toEqual([200, 'COMPLETED', 'A plain note for the parser.']);
    expect([retry.status, retry.replayed, retry.body]).toEqual([200, 'true', first.body]);
  });

  it('still running: the retry waits out the window and answers 202 with the same id; once done, 200 with the result', async () => {
    const key = uniqueKey('running');
    const url = `${site.url}/slow/${WINDOW_MS * 2 + 500}/running`;
    const first = await submit('/web-scrapper/', { url }, key);
    expect([first.status, first.body.status]).toEqual([202, 'processing']);
    const retry = await submit('/web-scrapper/', { url }, key, alice, gateways[1]);
    expect([retry.status, retry.replayed, retry.body]).toEqual([202, 'true', first.body]);
    // Later tries catch the end inside their window (one does unless the host is very slow).
    let done = await submit('/web-scrapper/', { url }, key);
    for (let tries = 1; done.status === 202 && tries < 5; tries++) {
      expect([done.replayed, done.body]).toEqual(['true', first.body]);
      done = await submit('/web-scrapper/', { url }, key);
    }
    expect([done.status, done.replayed, done.body.request_id, done.body.status]).toEqual([200, 'true', idOf(first), 'completed']);
    expect(String(done.body.text_content)).toContain('Slow page after');
    expect(site.hits[new URL(url).pathname]).toBe(1);
  }, 60_000);

  it('six submits at once with one key, over both gateways: one request, every answer its id', async () => {
    const key = uniqueKey('race');
    const url = `${site.url}/slow/500/race`;
    const before = await recordIds('scrape');
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => submit('/web-scrapper/', { url }, key, alice, gateways[i % 2])));
    const added = (await recordIds('scrape')).filter((id) => !before.includes(id));
    expect(added).toHaveLength(1);
    expect(answers.map((a) => [a.status, idOf(a), a.requestId])).toEqual(answers.map(() => [200, added[0], added[0]]));
    expect(answers.filter((a) => a.replayed === 'true')).toHaveLength(5);
    expect(site.hits['/slow/500/race']).toBe(1);
  }, 30_000);
});

describe('crawls, batches and maps take the key too', () => {
  const crawlStatus = async (id: string) => (await fetch(`${gateways[0].url}/web-scrapper/crawl/${id}`, { headers: { 'x-api-key': alice.apiKey } }).then((r) => r.json())) as { status: string };
  const ttls = async (family: string, key: string, id: string) => {
    const claimKey = `${prefix}:idem:${family}:${alice.accountId}:${createHash('sha256').update(key).digest('hex')}`;
    const [record, claim] = await Promise.all([test.redis.ttl(`${prefix}:rec:${family}:${id}`), test.redis.ttl(claimKey)]);
    return { record: Math.round(record / 3600), claimMatches: Math.abs(record - claim) <= 2 };
  };

  it('crawl: a retry answers the same crawl (202 while it runs, its state once ended), fetches nothing again, and the key lives as its record', async () => {
    const key = uniqueKey('crawl');
    const body = { url: `${site.url}/slow/2500/crawl-idem`, limit: 1, sitemap: 'skip', render_js: false };
    const before = await recordIds('crawl');
    const first = await submit('/web-scrapper/crawl', body, key);
    expect([first.status, first.body, first.replayed]).toEqual([202, { request_id: idOf(first), status: 'processing', url: body.url }, null]);
    expect(await ttls('crawl', key, idOf(first))).toEqual({ record: 7 * 24, claimMatches: true });
    const retry = await submit('/web-scrapper/crawl', { ...body }, key, alice, gateways[1]);
    expect([retry.status, retry.replayed, retry.requestId, retry.body]).toEqual([202, 'true', idOf(first), first.body]);
    await waitFor(() => crawlStatus(idOf(first)), (c) => c.status === 'completed', 20_000);
    const ended = await submit('/web-scrapper/crawl', body, key);
    expect([ended.status, ended.replayed, idOf(ended)]).toEqual([200, 'true', idOf(first)]);
    expect(ended.body).toMatchObject({ status: 'completed', reason: 'every page in scope was crawled', counts: { completed: 1 }, pages: [] });
    expect((await recordIds('crawl')).filter((id) => !before.includes(id))).toEqual([idOf(first)]);
    expect(site.hits['/slow/2500/crawl-idem']).toBe(1);
    // Kept 24 hours after the end, the key with it.
    expect(await ttls('crawl', key, idOf(first))).toEqual({ record: 24, claimMatches: true });
    const other = await submit('/web-scrapper/crawl', { ...body, limit: 2 }, key, alice, gateways[1]);
    expect([other.status, errorFormatProblem('scraper', other.body, 422, other.requestId ?? undefined), String(other.body.error)]).toEqual([422, null, expect.stringMatching(/^E009: this Idempotency-Key was already used with a different request body/)]);
  }, 40_000);

  it('six crawl submits at once with one key, over both gateways: one crawl, every answer its id, the losers leave no state or admission', async () => {
    const key = uniqueKey('crawl-race');
    const body = { url: `${site.url}/slow/1500/crawl-race`, limit: 1, sitemap: 'skip', render_js: false };
    // A crawl's state is the hash `crawl:<id>` (the queue's own keys share the prefix `crawl:`).
    const crawlStates = async () => (await keysMatching(test.redis, `${prefix}:crawl:*`)).filter((k) => /:crawl:[0-9a-f-]{36}$/.test(k));
    const [records, states] = [await recordIds('crawl'), await crawlStates()];
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => submit('/web-scrapper/crawl', body, key, alice, gateways[i % 2])));
    const added = (await recordIds('crawl')).filter((id) => !records.includes(id));
    expect(added).toHaveLength(1);
    expect(answers.map((a) => [a.status, idOf(a), a.requestId])).toEqual(answers.map(() => [202, added[0], added[0]]));
    expect(answers.filter((a) => a.replayed === 'true')).toHaveLength(5);
    expect((await crawlStates()).filter((k) => !states.includes(k))).toEqual([`${prefix}:crawl:${added[0]}`]);
    expect(await test.redis.zrange(`${prefix}:active-crawls:${alice.accountId}`, 0, -1)).toEqual([added[0]]);
    await waitFor(() => crawlStatus(added[0]), (c) => c.status === 'completed', 20_000);
    expect(site.hits['/slow/1500/crawl-race']).toBe(1);
  }, 40_000);

  it('batch and map: a retry answers the same request; map with another body answers 422', async () => {
    const batchKey = uniqueKey('batch');
    const batch = { urls: [`${site.url}/article`, `${site.url}/note.txt`] };
    const first = await submit('/web-scrapper/batch', batch, batchKey);
    const retry = await submit('/web-scrapper/batch', batch, batchKey, alice, gateways[1]);
    expect([first.status, retry.replayed, idOf(retry)]).toEqual([202, 'true', idOf(first)]);

    const mapKey = uniqueKey('map');
    const map = { url: `${site.url}/article` };
    const mapped = await submit('/web-scrapper/map', map, mapKey);
    expect([mapped.status, mapped.body.status]).toEqual([200, 'completed']);
    const again = await submit('/web-scrapper/map', map, mapKey, alice, gateways[1]);
    expect([again.status, again.replayed, again.requestId, again.body]).toEqual([200, 'true', idOf(mapped), mapped.body]);
    expect(await ttls('map', mapKey, idOf(mapped))).toEqual({ record: 24, claimMatches: true });
    const other = await submit('/web-scrapper/map', { ...map, limit: 3 }, mapKey);
    expect([other.status, String(other.body.error)]).toEqual([422, expect.stringMatching(/^E009: this Idempotency-Key was already used/)]);
    await waitFor(() => fetch(`${gateways[0].url}/web-scrapper/batch/${idOf(first)}`, { headers: { 'x-api-key': alice.apiKey } }).then((r) => r.json() as Promise<{ status: string }>), (b) => b.status === 'completed', 20_000);
  }, 40_000);
});

describe('keys are per account and family; a key whose record is gone is free again', () => {
  it('another account, or another family, with the same key starts its own request', async () => {
    const key = uniqueKey('shared');
    const url = `${site.url}/article`;
    const a = await submit('/web-scrapper/', { url }, key, alice);
    const b = await submit('/web-scrapper/', { url }, key, bob);
    const v1 = await submit('/v1/llm-web-scrapper', { url, use_llm: false }, key, alice);
    expect([a.status, b.status, v1.status]).toEqual([200, 200, 200]);
    expect(new Set([idOf(a), idOf(b), idOf(v1)]).size).toBe(3);
    expect([a.replayed, b.replayed, v1.replayed]).toEqual([null, null, null]);
  });

  it('once the request has expired (its record gone), the key starts a new request', async () => {
    const key = uniqueKey('expired');
    const body = { url: `${site.url}/article` };
    const first = await submit('/web-scrapper/', body, key);
    await test.redis.del(`${prefix}:rec:scrape:${idOf(first)}`);
    const again = await submit('/web-scrapper/', body, key);
    expect([again.status, again.replayed]).toEqual([200, null]);
    expect(idOf(again)).not.toBe(idOf(first));
    // And it is that new request the key names now.
    expect(idOf(await submit('/web-scrapper/', body, key))).toBe(idOf(again));
  });
});

describe('a key lives exactly as long as its request\'s record, per family (issue 37)', () => {
  /** Seconds to live of the record of `answer`'s request and of the claim of `key`. */
  async function lifetimes(family: string, key: string, answer: Answer, account = alice): Promise<{ record: number; claim: number }> {
    const claimKey = `${prefix}:idem:${family}:${account.accountId}:${createHash('sha256').update(key).digest('hex')}`;
    const [record, claim] = await Promise.all([test.redis.ttl(`${prefix}:rec:${family}:${idOf(answer)}`), test.redis.ttl(claimKey)]);
    return { record, claim };
  }
  const HOUR = 3600;

  it('scrape: 7 days while it runs, then both 15 h from its end; v1 24 h; parse 7 days', async () => {
    const key = { running: uniqueKey('ttl-running'), scrape: uniqueKey('ttl-scrape'), v1: uniqueKey('ttl-v1'), parse: uniqueKey('ttl-parse') };
    const running = await submit('/web-scrapper/', { url: `${site.url}/slow/${WINDOW_MS + 1500}/ttl` }, key.running);
    expect(running.status).toBe(202);
    const [scrape, v1, parse] = await Promise.all([
      submit('/web-scrapper/', { url: `${site.url}/article` }, key.scrape),
      submit('/v1/llm-web-scrapper', { url: `${site.url}/article`, use_llm: false }, key.v1),
      submit('/documents/parse', { url: `${site.url}/note.txt`, type: 'txt' }, key.parse),
    ]);
    expect([scrape.status, v1.status, parse.status]).toEqual([200, 200, 200]);
    const expected: Array<[string, string, Answer, number]> = [
      ['scrape', key.running, running, 7 * 24 * HOUR],
      ['scrape', key.scrape, scrape, 15 * HOUR],
      ['scrape-v1', key.v1, v1, 24 * HOUR],
      ['parse', key.parse, parse, 7 * 24 * HOUR],
    ];
    for (const [family, k, answer, seconds] of expected) {
      const { record, claim } = await lifetimes(family, k, answer);
      // Named values on failure: the record's and the claim's seconds.
      expect([family, seconds - record <= 30 ? 'as the family says' : record, Math.abs(record - claim) <= 2 ? 'as the record' : claim]).toEqual([family, 'as the family says', 'as the record']);
    }
    // The running scrape ends: its record and its key now both live 15 h from then (the key lived 7 days).
    const ended = await waitFor(() => test.stores.records.get('scrape', idOf(running)), (r) => r?.status === 'completed', 20_000);
    expect(ended?.status).toBe('completed');
    const after = await lifetimes('scrape', key.running, running);
    expect([15 * HOUR - after.record <= 30 ? '15 h' : after.record, Math.abs(after.record - after.claim) <= 2 ? 'as the record' : after.claim]).toEqual(['15 h', 'as the record']);
  }, 60_000);
});

describe('refusals in each family format', () => {
  const cases: Array<[ErrorFamily, string, Record<string, unknown>, Record<string, unknown>, RegExp]> = [
    ['scraper', '/web-scrapper/', { url: '/article' }, { url: '/article', output_type: 'markdown' }, /^E009: this Idempotency-Key was already used with a different request body/],
    ['v1', '/v1/llm-web-scrapper', { url: '/article', use_llm: false }, { url: '/article', use_llm: false, selector: 'p' }, /^this Idempotency-Key was already used with a different request body/],
    ['parser', '/documents/parse', { url: '/note.txt', type: 'txt' }, { url: '/note.txt', type: 'txt', output: 'markdown' }, /^422-001: Idempotency-Key reused with a different request$/],
  ];
  const absolute = (body: Record<string, unknown>) => ({ ...body, url: `${site.url}${body.url as string}` });

  it.each(cases)('%s: the same key with another body answers 422 and starts nothing', async (family, path, body, other, error) => {
    const key = uniqueKey(`reuse-${family}`);
    const first = await submit(path, absolute(body), key);
    expect(first.status).toBe(200);
    const records = await recordIds(family === 'parser' ? 'parse' : family === 'v1' ? 'scrape-v1' : 'scrape');
    const reused = await submit(path, absolute(other), key, alice, gateways[1]);
    expect(reused.status).toBe(422);
    expect(errorFormatProblem(family, reused.body, 422, reused.requestId ?? undefined)).toBeNull();
    expect(String(reused.body.error)).toMatch(error);
    if (family === 'parser') expect(reused.body.details).toEqual(['this Idempotency-Key was already used with a different request body; send a new key for a new request']);
    expect(await recordIds(family === 'parser' ? 'parse' : family === 'v1' ? 'scrape-v1' : 'scrape')).toEqual(records);
  });

  it.each(cases)('%s: a malformed key (empty, 256 characters, a space, non-ASCII) answers 400', async (family, path, body) => {
    for (const key of ['', 'k'.repeat(256), 'two words', 'clé']) {
      // fetch refuses a non-ASCII header value: it is sent as the raw bytes an HTTP client would.
      const res = key === 'clé' ? await rawPost(path, absolute(body), Buffer.from(key, 'utf8')) : await submit(path, absolute(body), key);
      expect({ key, status: res.status }).toEqual({ key, status: 400 });
      expect(errorFormatProblem(family, res.body, 400, res.requestId ?? undefined)).toBeNull();
      expect(String(res.body.error) + JSON.stringify(res.body.details ?? [])).toMatch(family === 'parser' ? /400-006: Invalid Idempotency-Key header.*1 to 255 printable ASCII/ : /Idempotency-Key must be 1 to 255 printable ASCII characters/);
    }
  });
});

/** A POST with an Idempotency-Key header of raw bytes, over node:http. */
function rawPost(path: string, body: unknown, key: Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${gateways[0].url}${path}`, { method: 'POST', headers: { 'x-api-key': alice.apiKey, 'content-type': 'application/json', 'idempotency-key': key.toString('latin1') } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown>, requestId: (res.headers['x-request-id'] as string) ?? null, replayed: null }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe('a gateway killed while it waits out the window', () => {
  it('leaves the client no answer; the retry with the same key, on the other gateway, answers that same request', async () => {
    const doomed = await startGatewayProcess(env);
    await untilReady(doomed);
    const key = uniqueKey('killed');
    const url = `${site.url}/slow/2000/killed`;
    const before = await recordIds('scrape');
    const cut = submit('/web-scrapper/', { url }, key, alice, doomed).then(
      (a) => ({ answered: a.status }),
      (err: Error) => ({ failed: err.message }),
    );
    // The worker is fetching the page: the request is recorded and queued, the gateway waiting.
    const deadline = Date.now() + 10_000;
    while (!site.hits['/slow/2000/killed'] && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    expect(site.hits['/slow/2000/killed']).toBe(1);
    doomed.process.child.kill('SIGKILL');
    expect(await cut).toEqual({ failed: 'fetch failed' });
    const started = (await recordIds('scrape')).filter((id) => !before.includes(id));
    expect(started).toHaveLength(1);

    const retry = await submit('/web-scrapper/', { url }, key, alice, gateways[1]);
    expect([retry.status, retry.replayed, idOf(retry), retry.requestId, retry.body.status]).toEqual([200, 'true', started[0], started[0], 'completed']);
    expect(String(retry.body.text_content)).toContain('Slow page after 2000 ms.');
    expect(site.hits['/slow/2000/killed']).toBe(1);
    expect((await recordIds('scrape')).filter((id) => !before.includes(id))).toEqual(started);
    await doomed.process.kill();
  }, 60_000);
});
