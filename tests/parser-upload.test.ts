import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLogger, newRequestId } from '@gleaner/platform';
import { LocalFolderStore, S3Store, uploadKey, type DocumentStore } from '@gleaner/object-store';
import { loadParserWorkerConfig, startParserWorker, type RunningService } from '@gleaner/parser-worker';
import { serviceEnv } from './support/env.js';
import { GatewayHarness, type TestAccount } from './support/gateway.js';
import { handWrittenPdf } from './support/hand-written-pdf.js';
import { startService, type ServiceProcess } from './support/processes.js';
import { rawHttp } from './support/raw-http.js';
import { deleteKeysWithPrefix, testPrefix } from './support/redis.js';
import { startLocalS3, S3_TEST_CREDENTIALS, type LocalS3 } from './support/s3-server.js';
import { waitFor } from './support/webhook-receiver.js';

/**
 * Document uploads end to end (`POST /documents/parse` as multipart/form-data): a gateway and a
 * parser worker sharing a local folder, and a gateway with a parser worker in another process
 * that has no access to the gateway's folder (a "second machine"), both reading through a local
 * S3-compatible server.
 */
const MB = 1024 * 1024;
const LIMIT = 50 * MB;

const localPrefix = testPrefix('upload-local');
const s3Prefix = testPrefix('upload-s3');
let scratch: string;
let s3: LocalS3;
let local: { h: GatewayHarness; worker: RunningService; store: DocumentStore; account: TestAccount };
let remote: { h: GatewayHarness; worker: ServiceProcess; store: DocumentStore; account: TestAccount };

beforeAll(async () => {
  scratch = await mkdtemp(path.join(os.tmpdir(), 'gleaner-upload-'));
  s3 = await startLocalS3();
  const localEnv = { DOCUMENT_STORE: 'local', DOCUMENT_STORE_DIR: path.join(scratch, 'machine-a'), PARSER_CONCURRENCY: '1', DOCUMENT_STORE_SWEEP_INTERVAL_MS: '1000' };
  const s3Env = s3.env('gleaner-uploads');
  const [lh, rh] = await Promise.all([GatewayHarness.start(localPrefix, localEnv), GatewayHarness.start(s3Prefix, s3Env)]);
  // The second machine's folder is not the gateway's: only the bucket is shared.
  const remoteWorker = startService('parser-worker', serviceEnv(s3Prefix, { ...s3Env, DOCUMENT_STORE_DIR: path.join(scratch, 'machine-b'), PARSER_CONCURRENCY: '1' }));
  const localWorker = await startParserWorker(loadParserWorkerConfig(serviceEnv(localPrefix, localEnv)), createLogger('upload-test', 'error'));
  await remoteWorker.waitFor(/ready/, 60_000);
  local = { h: lh, worker: localWorker, store: new LocalFolderStore(localEnv.DOCUMENT_STORE_DIR), account: await lh.account('uploader') };
  remote = {
    h: rh,
    worker: remoteWorker,
    store: new S3Store({ bucket: 'gleaner-uploads', region: 'us-east-1', endpoint: s3.endpoint, forcePathStyle: true, credentials: S3_TEST_CREDENTIALS }),
    account: await rh.account('uploader'),
  };
}, 90_000);

afterAll(async () => {
  await Promise.all([local?.worker.stop(), remote?.worker.kill()]);
  await Promise.all([local?.h.stop(), remote?.h.stop(), remote?.store.close()]);
  await s3?.stop();
  await Promise.all([deleteKeysWithPrefix(localPrefix), deleteKeysWithPrefix(s3Prefix)]);
  await rm(scratch, { recursive: true, force: true });
});

type Setup = Pick<typeof local, 'h' | 'store' | 'account'>;

/** A Blob of bytes (Node's Buffer type is wider than BlobPart's). */
const blobOf = (...parts: Buffer[]) => new Blob(parts.map((p) => new Uint8Array(p)));

function upload(setup: Setup, file: Blob | null, fields: Record<string, string> = {}, fileName = 'document.pdf') {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  if (file) form.set('file', file, fileName);
  return fetch(`${setup.h.url}/documents/parse`, { method: 'POST', headers: { 'x-api-key': setup.account.apiKey }, body: form });
}

async function storedUploads(store: DocumentStore): Promise<string[]> {
  const keys: string[] = [];
  for await (const object of store.list('uploads/')) keys.push(object.key);
  return keys;
}

const pdf = handWrittenPdf([
  ['Quarterly report', 'Revenue grew by four percent.'],
  ['Second page', 'Costs fell in every region.'],
]);

describe.each([
  ['local folder, worker in the gateway\'s process', (): Setup => local],
  ['S3, worker in another process without the gateway\'s folder', (): Setup => remote],
] as const)('%s', (_name, setupOf) => {
  it('parses an uploaded PDF: 200 COMPLETED, pages joined, the status record readable, the file kept in storage', async () => {
    const setup = setupOf();
    const res = await upload(setup, blobOf(pdf), { output: 'markdown' }, 'report.pdf');
    const body = (await res.json()) as Record<string, unknown>;
    expect({ status: res.status, body }).toMatchObject({ status: 200, body: { status: 'COMPLETED', type: 'pdf', pages: 2 } });
    expect(body.data).toContain('Revenue grew by four percent.');
    expect(body.data).toContain('\n\n=== Page Break ===\n\n');
    expect(res.headers.get('x-request-id')).toBe(body.requestId);
    const status = await fetch(`${setup.h.url}/documents/status/${String(body.requestId)}`, { headers: { 'x-api-key': setup.account.apiKey } });
    expect(await status.json()).toMatchObject({ requestId: body.requestId, status: 'COMPLETED', type: 'pdf', data: body.data });
    const record = await setup.h.stores.records.get('parse', String(body.requestId));
    expect(record?.input).toEqual({ upload: { name: 'report.pdf', bytes: pdf.length }, declaredType: 'pdf', output: 'markdown' });
    // SPEC: stored files are kept 7 days (the sweep removes them then).
    expect(await storedUploads(setup.store)).toContain(uploadKey(String(body.requestId)));
  }, 60_000);

  it('takes the type hint from the form, else from the file name', async () => {
    const setup = setupOf();
    const text = new Blob(['Meeting notes\n\nWe agreed on the plan.\n']);
    const named = await upload(setup, text, {}, 'notes.txt');
    expect(await named.json()).toMatchObject({ status: 'COMPLETED', type: 'txt', data: expect.stringContaining('We agreed on the plan.') });
    const declared = await upload(setup, text, { type: 'txt', output: 'markdown' }, 'blob');
    expect(await declared.json()).toMatchObject({ status: 'COMPLETED', type: 'txt', data: expect.stringContaining('## Meeting notes') });
  }, 30_000);

  it('refuses 50 MB and one byte with 413-001 and stores nothing; exactly 50 MB reaches the parser', async () => {
    const setup = setupOf();
    const before = await storedUploads(setup.store);
    const over = await upload(setup, blobOf(Buffer.from('%PDF-1.4\n'), Buffer.alloc(LIMIT + 1 - 9, 0x20)));
    expect({ status: over.status, body: await over.json() }).toEqual({ status: 413, body: { error: '413-001: Request too large', details: ['the file is larger than 50 MB'] } });
    expect(await storedUploads(setup.store)).toEqual(before);

    // Exactly at the limit the gateway accepts it: what comes back is the parser's verdict on the bytes.
    const edge = await upload(setup, blobOf(Buffer.from('%PDF-1.4\n'), Buffer.alloc(LIMIT - 9, 0x20)));
    const body = (await edge.json()) as Record<string, unknown>;
    expect(edge.status).not.toBe(413);
    expect(body.requestId).toEqual(expect.any(String));
    const record = await setup.h.stores.records.get('parse', String(body.requestId));
    expect(record?.input).toMatchObject({ upload: { bytes: LIMIT } });
    expect(record?.status).toMatch(/completed|failed/);
  }, 90_000);

  it('refuses a body that declares more than 50 MB before reading it', async () => {
    const setup = setupOf();
    // 60 MB declared, a few bytes sent: an answer can only come from a gateway that refused the
    // body before reading it (a client still sending 60 MB may see its connection closed instead).
    const res = await rawHttp(Number(new URL(setup.h.url).port), {
      method: 'POST',
      path: '/documents/parse',
      headers: [
        ['x-api-key', setup.account.apiKey],
        ['content-type', 'multipart/form-data; boundary=b'],
        ['content-length', String(60 * MB)],
      ],
      body: '--b\r\nContent-Disposition: form-data; name="file"; filename="big.txt"\r\n\r\nAAAA',
      contentLength: false,
    });
    expect({ status: res.status, body: res.json }).toEqual({ status: 413, body: { error: '413-001: Request too large', details: ['the file is larger than 50 MB'] } });
  }, 60_000);

  it('refuses a file of a kind the parser does not read with 400-001 while it streams, and stores nothing', async () => {
    const setup = setupOf();
    const before = await storedUploads(setup.store);
    const gif = Buffer.concat([Buffer.from('GIF89a'), Buffer.alloc(2 * MB, 0x01)]);
    const res = await upload(setup, blobOf(gif), { type: 'png' }, 'picture.gif');
    expect({ status: res.status, body: await res.json() }).toEqual({ status: 400, body: { error: '400-001: Invalid file type', details: ['a GIF image'] } });
    expect(await storedUploads(setup.store)).toEqual(before);
  });

  it('answers the form\'s field errors as for JSON bodies and removes the stored file', async () => {
    const setup = setupOf();
    const before = await storedUploads(setup.store);
    const expectError = async (res: Response, status: number, error: string, detail: RegExp) => {
      const body = (await res.json()) as { error: string; details: string[] };
      expect({ status: res.status, error: body.error }).toEqual({ status, error });
      expect(body.details.join(' ')).toMatch(detail);
    };
    await expectError(await upload(setup, blobOf(pdf), { output: 'html' }), 400, '400-005: Invalid output format', /'output' must be/);
    await expectError(await upload(setup, blobOf(pdf), { type: 'ppt' }), 400, '400-001: Invalid file type', /'type' must be one of/);
    await expectError(await upload(setup, blobOf(pdf), { webhook: 'ftp://example.com/hook' }), 400, '400-003: Invalid webhook URL', /webhook/);
    await expectError(await upload(setup, blobOf(pdf), { url: 'https://example.com/a.pdf' }), 400, '400-004: Missing required field', /not both/);
    await expectError(await upload(setup, null, { type: 'pdf' }), 400, '400-004: Missing required field', /'file' is required/);
    await expectError(await upload(setup, new Blob([]), {}, 'empty.pdf'), 400, '400-001: Invalid file type', /empty/);
    expect(await storedUploads(setup.store)).toEqual(before);
  });
});

describe('the gateway', () => {
  it('keeps the 100 KB limit for JSON bodies, saying how to send larger documents', async () => {
    const res = await fetch(`${local.h.url}/documents/parse`, {
      method: 'POST',
      headers: { 'x-api-key': local.account.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'https://example.com/a.pdf', padding: 'x'.repeat(110 * 1024) }),
    });
    const body = (await res.json()) as { error: string; details: string[] };
    expect({ status: res.status, error: body.error }).toEqual({ status: 413, error: '413-001: Request too large' });
    expect(body.details[0]).toMatch(/100 KB.*multipart/);
  });

  it('answers a malformed multipart body with 400-004', async () => {
    const res = await fetch(`${local.h.url}/documents/parse`, {
      method: 'POST',
      headers: { 'x-api-key': local.account.apiKey, 'content-type': 'multipart/form-data' },
      body: 'no boundary here',
    });
    const body = (await res.json()) as { error: string; details: string[] };
    expect({ status: res.status, error: body.error }).toEqual({ status: 400, error: '400-004: Missing required field' });
    expect(body.details[0]).toMatch(/malformed multipart\/form-data/);
  });

  it("keeps a UTF-8 file name as sent ('résumé.pdf'), from filename and from filename*, and refuses one with control characters", async () => {
    const sent = await upload(local, blobOf(pdf), {}, 'résumé.pdf');
    const requestId = String(((await sent.json()) as Record<string, unknown>).requestId);
    expect((await local.h.stores.records.get('parse', requestId))?.input).toMatchObject({ upload: { name: 'résumé.pdf' } });
    const view = await fetch(`${local.h.url}/account/requests/${requestId}`, { headers: { 'x-api-key': local.account.apiKey } });
    expect(((await view.json()) as { input: unknown }).input).toMatchObject({ upload: { name: 'résumé.pdf' } });

    const multipart = (disposition: string) => {
      const boundary = 'name-test-boundary';
      const body = Buffer.concat([Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; ${disposition}\r\n\r\n`, 'utf8'), pdf, Buffer.from(`\r\n--${boundary}--\r\n`)]);
      return rawHttp(Number(new URL(local.h.url).port), {
        method: 'POST',
        path: '/documents/parse',
        headers: [['x-api-key', local.account.apiKey], ['Content-Type', `multipart/form-data; boundary=${boundary}`]],
        body,
      });
    };
    const extended = await multipart(`filename="resume.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%E2%80%93%20CV.pdf`);
    expect((await local.h.stores.records.get('parse', String((extended.json as Record<string, unknown>).requestId)))?.input).toMatchObject({ upload: { name: 'résumé – CV.pdf' } });

    // Raw control bytes in a part header are malformed to busboy; percent-encoded in filename* they arrive.
    for (const name of ['red%1B%5B31m.pdf', 'next%C2%85line.pdf', 'nul%00.pdf']) {
      const refused = await multipart(`filename*=UTF-8''${name}`);
      expect([refused.status, refused.json]).toEqual([
        400,
        { error: '400-004: Missing required field', details: ["the file's name must be at most 255 characters, without control characters (U+0000-U+001F, U+007F-U+009F) or unpaired surrogates"] },
      ]);
    }
  }, 30_000);

  it('checks the key before reading an upload', async () => {
    const res = await upload({ ...local, account: { ...local.account, apiKey: 'gk_wrong' } }, blobOf(pdf));
    expect(res.status).toBe(401);
    const parseless = await local.h.account('scrape-only', ['scrape']);
    expect((await upload({ ...local, account: parseless }, blobOf(pdf))).status).toBe(403);
  });
});

describe('the parser worker', () => {
  it('fails a job whose upload is gone from the store with 500-002, saying why', async () => {
    const requestId = newRequestId();
    const { records } = local.h.stores;
    await records.create({ id: requestId, family: 'parse', accountId: local.account.accountId, input: { upload: { name: 'x.pdf', bytes: 10 }, declaredType: 'pdf', output: 'plain' } });
    await local.h.gateway.deps.producers.parse.add({ requestId, accountId: local.account.accountId, upload: { key: uploadKey(requestId), name: 'x.pdf', bytes: 10 }, declaredType: 'pdf', output: 'plain' }, requestId);
    const ended = await waitFor(() => records.get('parse', requestId), (r) => r?.status === 'failed', 30_000);
    expect(ended?.error).toMatchObject({ code: '500-002', message: 'Storage error', details: [expect.stringMatching(/no longer in the document store.*DOCUMENT_STORE=s3/)] });
  }, 40_000);

  it('sweeps, once an interval, uploads older than 7 days and uploads whose record expired', async () => {
    const idAt = (ms: number, tail: string) => `${ms.toString(16).padStart(12, '0').replace(/^(.{8})(.{4})$/, '$1-$2')}-7000-8000-${tail}`;
    const old = idAt(Date.now() - 8 * 24 * 3600_000, '000000000042');
    const orphan = idAt(Date.now() - 2 * 3600_000, '000000000043');
    await local.store.put(uploadKey(old), Readable.from([Buffer.from('old')]));
    await local.store.put(uploadKey(orphan), Readable.from([Buffer.from('record expired')]));
    // A completed upload whose record lives on stays.
    const kept = (await (await upload(local, new Blob(['still wanted\n']), {}, 'kept.txt')).json()) as { requestId: string };
    const left = await waitFor(() => storedUploads(local.store), (keys) => !keys.includes(uploadKey(old)) && !keys.includes(uploadKey(orphan)), 20_000);
    expect(left).toContain(uploadKey(kept.requestId));
  }, 30_000);
});
