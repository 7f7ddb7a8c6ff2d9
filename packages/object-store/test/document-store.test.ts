import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startLocalS3, S3_TEST_CREDENTIALS, type LocalS3 } from '../../../tests/support/s3-server.js';
import {
  LocalFolderStore,
  ObjectMissingError,
  S3Store,
  StorageUnavailableError,
  sweepUploads,
  uploadKey,
  UPLOAD_LIFETIME_MS,
  type DocumentStore,
} from '../src/index.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

let s3: LocalS3;
let folder: string;

beforeAll(async () => {
  s3 = await startLocalS3();
  folder = await mkdtemp(path.join(os.tmpdir(), 'gleaner-store-'));
});
afterAll(async () => {
  await s3.stop();
  await rm(folder, { recursive: true, force: true });
});

const s3Store = (bucket: string, credentials = S3_TEST_CREDENTIALS, endpoint = s3.endpoint) =>
  new S3Store({ bucket, region: 'us-east-1', endpoint, forcePathStyle: true, credentials });

/** `megabytes` MB in 1 MB chunks, each filled with its index: a corrupted or reordered part shows. */
function chunks(megabytes: number, failAfter?: number): Readable {
  return Readable.from(
    (function* () {
      for (let i = 0; i < megabytes; i++) {
        if (failAfter !== undefined && i === failAfter) throw new Error('client went away');
        yield Buffer.alloc(1024 * 1024, i);
      }
    })(),
  );
}

async function keys(store: DocumentStore, prefix = 'uploads/'): Promise<string[]> {
  const found: string[] = [];
  for await (const object of store.list(prefix)) found.push(object.key);
  return found.sort();
}

/** A UUIDv7 request id whose time is `ms` (what the gateway's ids carry). */
function requestIdAt(ms: number, tail = '8000-000000000001'): string {
  const hex = ms.toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7000-${tail}`;
}

describe.each([
  ['local folder', () => new LocalFolderStore(path.join(folder, 'a'))],
  ['S3 (s3rver)', () => s3Store('store-tests')],
] as const)('%s', (_name, makeStore) => {
  let store: DocumentStore;
  beforeAll(async () => {
    store = makeStore();
    if (store instanceof S3Store) await store.ensureBucket();
  });
  afterAll(() => store.close());

  it('stores a 12 MB stream in parts and reads back the same bytes', async () => {
    const { bytes } = await store.put('uploads/big', chunks(12));
    expect(bytes).toBe(12 * 1024 * 1024);
    const read = await store.read('uploads/big');
    expect(read.length).toBe(12 * 1024 * 1024);
    for (let i = 0; i < 12; i++) expect([i, read[i * 1024 * 1024], read[(i + 1) * 1024 * 1024 - 1]]).toEqual([i, i, i]);
    const [listed] = await (async () => {
      const all = [];
      for await (const o of store.list('uploads/')) if (o.key === 'uploads/big') all.push(o);
      return all;
    })();
    expect(listed.size).toBe(12 * 1024 * 1024);
    expect(Math.abs(listed.lastModified.getTime() - Date.now())).toBeLessThan(60_000);
  });

  it('deletes, and then reading says the object is missing; deleting again is fine', async () => {
    await store.put('uploads/short', Readable.from([Buffer.from('hello')]));
    expect((await store.read('uploads/short')).toString()).toBe('hello');
    await store.delete('uploads/short');
    await store.delete('uploads/short');
    await expect(store.read('uploads/short')).rejects.toBeInstanceOf(ObjectMissingError);
    expect(await keys(store)).not.toContain('uploads/short');
  });

  it('keeps nothing of a body that fails midway, and rejects with the body\'s error', async () => {
    await expect(store.put('uploads/broken', chunks(8, 6))).rejects.toThrow('client went away');
    expect(await keys(store)).not.toContain('uploads/broken');
    await expect(store.read('uploads/broken')).rejects.toBeInstanceOf(ObjectMissingError);
    if (store instanceof LocalFolderStore) expect((await readdir(path.join(store.folder, 'uploads'))).filter((n) => n.includes('broken'))).toEqual([]);
  });

  it('refuses keys that could leave the store', async () => {
    for (const key of ['../secret', 'uploads/../../x', '/etc/passwd', 'uploads//x', '']) {
      await expect(store.read(key)).rejects.toThrow(/invalid object key/);
    }
  });

  it('sweeps uploads older than 7 days, and younger ones whose record is gone after the grace hour', async () => {
    const now = Date.now();
    const fresh = requestIdAt(now - 60_000, '8000-00000000000a');
    const orphanFresh = requestIdAt(now - 30 * 60_000, '8000-00000000000b');
    const orphanOld = requestIdAt(now - 2 * 3600_000, '8000-00000000000c');
    const live = requestIdAt(now - 3 * 24 * 3600_000, '8000-00000000000d');
    const expired = requestIdAt(now - UPLOAD_LIFETIME_MS - 1000, '8000-00000000000e');
    for (const id of [fresh, orphanFresh, orphanOld, live, expired]) await store.put(uploadKey(id), Readable.from([Buffer.from(id)]));
    const withRecords = new Set([fresh, live, expired]);
    const outcome = await sweepUploads(store, async (id) => withRecords.has(id), now);
    expect(outcome.deleted.sort()).toEqual([uploadKey(orphanOld), uploadKey(expired)].sort());
    const left = await keys(store);
    for (const id of [fresh, orphanFresh, live]) expect(left).toContain(uploadKey(id));
    // A week later the record has expired too: everything goes.
    await sweepUploads(store, async () => false, now + UPLOAD_LIFETIME_MS + 1000);
    expect((await keys(store)).filter((k) => [fresh, orphanFresh, live].some((id) => k.includes(id)))).toEqual([]);
  });
});

describe('S3 failures', () => {
  it('creates a missing bucket once, and leaves an existing one alone', async () => {
    const store = s3Store('fresh-bucket');
    await store.ensureBucket();
    await store.ensureBucket();
    await store.put('uploads/x', Readable.from([Buffer.from('x')]));
    expect((await store.read('uploads/x')).toString()).toBe('x');
    await store.close();
  });

  it('reports an unknown access key as a storage error naming S3\'s code', async () => {
    const store = s3Store('store-tests', { accessKeyId: 'NOT-A-KEY', secretAccessKey: 'x' });
    const error = await store.read('uploads/big').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StorageUnavailableError);
    expect((error as Error).message).toMatch(/InvalidAccessKeyId.*HTTP 403/);
    await store.close();
  });

  it('reports an unreachable endpoint as a storage error', async () => {
    const store = s3Store('store-tests', S3_TEST_CREDENTIALS, 'http://127.0.0.1:9');
    const error = await store.put('uploads/y', Readable.from([Buffer.from('y')])).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StorageUnavailableError);
    expect((error as Error).message).toMatch(/S3 unreachable on uploads\/y/);
    await store.close();
  });
});

describe('loading the AWS SDK', () => {
  const RUN = fileURLToPath(new URL('../../platform/src/run.mjs', import.meta.url));
  const FIXTURE = fileURLToPath(new URL('./fixtures/sdk-loading.ts', import.meta.url));
  /** Modules of the AWS SDK loaded by a process (run as the services are) that used a store of this kind. */
  const sdkModulesLoaded = (kind: 'local' | 's3') => {
    const child = spawnSync(process.execPath, [RUN, FIXTURE, kind], { encoding: 'utf8', timeout: 30_000, env: { ...process.env, NODE_OPTIONS: '', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' } });
    expect(child.stderr).toBe('');
    return (JSON.parse(child.stdout) as { sdkModules: number }).sdkModules;
  };

  it('loads it with the first S3 store only: a gateway or parser worker keeping uploads in a folder never does', () => {
    expect(sdkModulesLoaded('local')).toBe(0);
    expect(sdkModulesLoaded('s3')).toBeGreaterThan(0);
  }, 60_000);
});
