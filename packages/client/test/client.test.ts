import { openAsBlob } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { encodeMultipart, GleanerApiError, GleanerClient, GleanerCore, GleanerJobFailedError, GleanerTimeoutError, type ParseProgress } from '@gleaner/client';
import { LocalFolderStore, uploadKey } from '@gleaner/object-store';
import { GatewayHarness, type TestAccount } from '../../../tests/support/gateway.js';
import { deleteKeysWithPrefix, testPrefix } from '../../../tests/support/redis.js';

/**
 * The client against a real gateway with no workers: submits answer 202 at once (window 0), and
 * the test plays the worker by writing the request record, which is all the status endpoints read.
 */
const prefix = testPrefix('client');
let h: GatewayHarness;
let account: TestAccount;
let client: GleanerClient;
let scratch: string;
const PAGE = 'http://127.0.0.1:9/page.html';

/** The client's fetch option, used to learn the id of each submit as it is answered. */
const submitted: string[] = [];
const recordingFetch: typeof fetch = async (input, init) => {
  const res = await fetch(input, init);
  if (init?.method === 'POST' && res.status === 202) submitted.push(res.headers.get('x-request-id')!);
  return res;
};

beforeAll(async () => {
  scratch = await mkdtemp(path.join(os.tmpdir(), 'gleaner-client-'));
  h = await GatewayHarness.start(prefix, { SYNC_WINDOW_MS: '0', DOCUMENT_STORE: 'local', DOCUMENT_STORE_DIR: path.join(scratch, 'store') });
  account = await h.account('client-user');
  await h.stores.accounts.setRateLimit(account.accountId, 10_000);
  client = new GleanerClient({ baseUrl: `${h.url}/`, apiKey: account.apiKey, fetch: recordingFetch });
});

afterAll(async () => {
  await h?.stop();
  await deleteKeysWithPrefix(prefix);
  await rm(scratch, { recursive: true, force: true });
});

const page = { meta: { title: 'T', description: 'D' }, links: [], images: [] };

describe('GleanerClient', () => {
  it('follows a 202 scrape to its result, in the status-endpoint shape', async () => {
    const progress: string[] = [];
    const waiting = client.scrapeAndWait({ url: PAGE, output_type: 'markdown' }, { pollMs: 50, timeoutMs: 10_000, onProgress: (p) => progress.push(p.status) });
    const id = await submittedId();
    await h.stores.records.markProcessing('scrape', id);
    // Ended only once a poll has seen it running (a fixed pause missed it on a loaded host).
    for (let i = 0; i < 200 && !progress.includes('processing'); i++) await new Promise((r) => setTimeout(r, 25));
    await h.stores.records.complete('scrape', id, { text: 'Hello', markdown: '# Hello', ...page });
    const result = await waiting;
    expect(result).toMatchObject({ request_id: id, url: PAGE, status: 'completed', content: { text: 'Hello', markdown: '# Hello', meta: page.meta } });
    expect(progress).toContain('processing');
    expect(await client.getScrape(id)).toMatchObject({ request_id: id, status: 'completed' });
  });

  it('reports pages done/total while a parse runs, then resolves with the text', async () => {
    const progress: ParseProgress[] = [];
    const waiting = client.parseAndWait({ url: 'http://127.0.0.1:9/report.pdf', type: 'pdf' }, { pollMs: 50, timeoutMs: 10_000, onProgress: (p) => progress.push(p) });
    const id = await submittedId();
    await h.stores.records.setProgress('parse', id, 2, 5);
    await new Promise((r) => setTimeout(r, 120));
    await h.stores.records.complete('parse', id, { data: 'one\n\n=== Page Break ===\n\ntwo', type: 'pdf', pages: 2 });
    await expect(waiting).resolves.toEqual({ requestId: id, status: 'COMPLETED', createdAt: expect.any(Number), data: 'one\n\n=== Page Break ===\n\ntwo', type: 'pdf', pages: 2 });
    expect(progress.some((p) => p.pagesDone === 2 && p.pagesTotal === 5)).toBe(true);
  });

  it('uploads a file from disk with parseFileAndWait: the service stores those bytes and answers as for a URL', async () => {
    const file = path.join(scratch, 'minutes.txt');
    const text = 'Minutes\n\nThe board met on Tuesday.\n'.repeat(2000);
    await writeFile(file, text);
    const waiting = client.parseFileAndWait({ name: 'minutes.txt', data: await openAsBlob(file) }, { output: 'markdown' }, { pollMs: 50, timeoutMs: 10_000 });
    const id = await submittedId();
    const record = await h.stores.records.get('parse', id);
    expect(record?.input).toEqual({ upload: { name: 'minutes.txt', bytes: Buffer.byteLength(text) }, declaredType: 'txt', output: 'markdown' });
    const stored = await new LocalFolderStore(path.join(scratch, 'store')).read(uploadKey(id));
    expect(stored.toString()).toBe(text);
    await h.stores.records.complete('parse', id, { data: '## Minutes', type: 'txt', pages: 1 });
    await expect(waiting).resolves.toEqual({ requestId: id, status: 'COMPLETED', createdAt: expect.any(Number), data: '## Minutes', type: 'txt', pages: 1 });
  });

  it('sends the same upload as bytes through encodeMultipart (transports without FormData, such as n8n\'s)', async () => {
    const bytes = new Uint8Array([0x25, 0x50, 0x44, 0x46, 0x2d, 0x0d, 0x0a, 0x00, 0xff, 0x22]);
    const core = new GleanerCore({
      sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
      send: async ({ method, path: route, form }) => {
        const { contentType, body } = await encodeMultipart(form!, 'gleaner-test-boundary');
        const res = await recordingFetch(h.url + route, { method, headers: { 'x-api-key': account.apiKey, 'content-type': contentType }, body });
        return { status: res.status, headers: Object.fromEntries(res.headers), body: await res.json() };
      },
    });
    const answer = await core.parseFile({ name: 'odd "name"\r\n.pdf', data: bytes }, { type: 'pdf', webhook: 'http://127.0.0.1:9/hook' });
    expect(answer.status).toBe('PROCESSING');
    const record = await h.stores.records.get('parse', answer.requestId);
    expect(record?.input).toMatchObject({ upload: { name: 'odd %22name%22%0D%0A.pdf', bytes: bytes.length }, declaredType: 'pdf' });
    expect(record?.webhook?.url).toBe('http://127.0.0.1:9/hook');
    expect([...(await new LocalFolderStore(path.join(scratch, 'store')).read(uploadKey(answer.requestId)))]).toEqual([...bytes]);
    // A refusal comes back as the parser's error.
    await expect(core.parseFile({ name: 'a.gif', data: new Uint8Array([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 0, 0, 0, 0]) })).rejects.toMatchObject({ status: 400, code: '400-001' });
  });

  it('rejects a request that ends failed, and gives up waiting at the timeout', async () => {
    const failing = client.parseAndWait({ url: 'http://127.0.0.1:9/a.pdf' }, { pollMs: 50, timeoutMs: 10_000 });
    const id = await submittedId();
    await h.stores.records.fail('parse', id, { code: '400-001', message: 'Invalid file type', details: ['detected: zip archive'] });
    await expect(failing).rejects.toThrow(GleanerJobFailedError);
    await expect(failing).rejects.toMatchObject({ requestId: id, error: '400-001: Invalid file type', details: ['detected: zip archive'] });

    await expect(client.scrapeAndWait({ url: PAGE }, { pollMs: 20, timeoutMs: 150 })).rejects.toThrow(GleanerTimeoutError);
  });

  it("raises GleanerApiError with the family's error body", async () => {
    const bad = await client.scrape({ url: 'ftp://example.com/' }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(GleanerApiError);
    expect(bad).toMatchObject({ status: 400, code: 'E003', body: { error: expect.stringMatching(/^E003: /) } });

    const unknown = await client.getParse('not-a-request-id').catch((e: unknown) => e);
    expect(unknown).toMatchObject({ status: 404, code: '404-001', body: { details: expect.any(Array) } });

    const stranger = new GleanerClient({ baseUrl: h.url, apiKey: 'gk_unknown' });
    await expect(stranger.usage()).rejects.toMatchObject({ status: 401, code: 'E004' });

    const scrapeOnly = new GleanerClient({ baseUrl: h.url, apiKey: (await h.account('client-scrape-only', ['scrape'])).apiKey });
    await expect(scrapeOnly.parse({ url: PAGE })).rejects.toMatchObject({ status: 403, code: '403-001' });
  });

  it('manages webhook subscriptions and reads the webhook secret and the account', async () => {
    const created = await client.createWebhook('http://127.0.0.1:9/hook', ['scrape', 'parse']);
    expect(created).toMatchObject({ id: expect.any(String), url: 'http://127.0.0.1:9/hook', families: ['scrape', 'parse'] });
    expect(await client.listWebhooks()).toEqual([created]);
    await expect(client.deleteWebhook(created.id)).resolves.toBe('deleted');
    await expect(client.deleteWebhook(created.id)).resolves.toBe('missing');
    expect(await client.listWebhooks()).toEqual([]);
    await expect(client.createWebhook('ftp://example.com/hook', ['scrape'])).rejects.toMatchObject({ status: 400, code: 'E009' });

    expect(await client.webhookSecret()).toMatch(/\S{16,}/);
    expect(await client.account()).toMatchObject({ account_id: account.accountId, name: 'client-user', scopes: expect.arrayContaining(['account']) });
  });

  it('reads usage', async () => {
    const usage = await client.usage();
    expect(usage.requests.scrape).toBeGreaterThanOrEqual(2);
    expect(usage.requests.parse).toBeGreaterThanOrEqual(2);
    expect(usage.rate_limit_per_minute).toBe(10_000);
  });
});

/** Waits for the next submit the client makes and returns its request id (from X-Request-ID). */
async function submittedId(): Promise<string> {
  const seen = submitted.length;
  for (let i = 0; i < 200 && submitted.length === seen; i++) await new Promise((r) => setTimeout(r, 10));
  if (submitted.length === seen) throw new Error('the client submitted nothing');
  return submitted[seen];
}
