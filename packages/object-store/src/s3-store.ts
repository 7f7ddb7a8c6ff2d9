import type { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import { checkKey, ObjectMissingError, StorageUnavailableError, type DocumentStore, type StoredObject } from './document-store.js';

export interface S3StoreOptions {
  bucket: string;
  region: string;
  /** MinIO, Ceph, R2…; unset for AWS itself. */
  endpoint?: string;
  /** `http://host/bucket/key` instead of `http://bucket.host/key` (MinIO and most self-hosted stores). */
  forcePathStyle: boolean;
  /** Unset: the SDK's default chain (environment, shared config, instance or task role). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

/**
 * S3's smallest multipart part, and the most an upload holds in memory: a file arrives in parts of
 * this size, one in flight at a time, so a 50 MB upload never sits whole in the gateway.
 */
const PART_BYTES = 5 * 1024 * 1024;

type S3Sdk = Awaited<ReturnType<typeof loadSdk>>;

interface S3Connection {
  sdk: S3Sdk;
  client: S3Client;
}

/**
 * The AWS SDK loads with the first S3 store, not in every gateway and parser worker that imports
 * this package: the parser worker's main thread started with 105-114 MB with it, 96-99 MB without
 * (22 MB in a bare Node). Imported here, by package name, as our bundler (run.mjs) hoists the
 * static imports of a lazily imported module of ours to the start of the process.
 */
async function loadSdk() {
  const [s3, storage] = await Promise.all([import('@aws-sdk/client-s3'), import('@aws-sdk/lib-storage')]);
  return { s3, storage };
}

/**
 * Objects in an S3-compatible bucket, through the AWS SDK v3 (`@aws-sdk/client-s3`, streaming
 * multipart uploads with `@aws-sdk/lib-storage`): every parser worker, on any machine, reads what
 * any gateway stored.
 */
export class S3Store implements DocumentStore {
  readonly kind = 's3';
  private readonly connecting: Promise<S3Connection>;

  constructor(private readonly options: S3StoreOptions) {
    this.connecting = loadSdk().then((sdk) => ({
      sdk,
      client: new sdk.s3.S3Client({
        region: options.region,
        endpoint: options.endpoint,
        forcePathStyle: options.forcePathStyle,
        credentials: options.credentials,
        // Checksums only where S3 requires them: several S3-compatible stores reject the newer
        // default (CRC32 trailers on every upload).
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      }),
    }));
    // Awaited by every operation, which reports a failure to load; not an unhandled rejection meanwhile.
    this.connecting.catch(() => undefined);
  }

  /** Creates the bucket when it does not exist (a fresh MinIO); an existing one is left as it is. */
  async ensureBucket(): Promise<void> {
    const { sdk, client } = await this.connecting;
    try {
      await client.send(new sdk.s3.HeadBucketCommand({ Bucket: this.options.bucket }));
    } catch (err) {
      if (statusOf(err) !== 404) throw storageError(sdk, err, `bucket ${this.options.bucket}`);
      await client.send(new sdk.s3.CreateBucketCommand({ Bucket: this.options.bucket })).catch((created) => {
        // Another process created it meanwhile.
        if ((created as Error).name !== 'BucketAlreadyOwnedByYou') throw storageError(sdk, created, `bucket ${this.options.bucket}`);
      });
    }
  }

  async put(key: string, body: Readable): Promise<{ bytes: number }> {
    // A body that fails makes the upload fail: lib-storage aborts the multipart upload it started.
    // Listened to before the SDK is awaited, so that a body failing meanwhile is not an uncaught
    // error; its data only after (a data listener starts the flow, which the upload must read).
    const failed = new Promise<never>((_resolve, reject) => body.once('error', reject));
    failed.catch(() => undefined);
    const { sdk, client } = await this.connecting;
    let bytes = 0;
    body.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
    });
    const upload = new sdk.storage.Upload({ client, params: { Bucket: this.options.bucket, Key: checkKey(key), Body: body }, partSize: PART_BYTES, queueSize: 1 });
    try {
      await Promise.race([upload.done(), failed]);
    } catch (err) {
      await upload.abort().catch(() => undefined);
      // The body's own error (too large, wrong type) is the reason, not what the store said after.
      throw body.errored ?? storageError(sdk, err, key);
    }
    return { bytes };
  }

  async read(key: string): Promise<Buffer> {
    const { sdk, client } = await this.connecting;
    try {
      const answer = await client.send(new sdk.s3.GetObjectCommand({ Bucket: this.options.bucket, Key: checkKey(key) }));
      return Buffer.from(await answer.Body!.transformToByteArray());
    } catch (err) {
      if (statusOf(err) === 404) throw new ObjectMissingError(key);
      throw storageError(sdk, err, key);
    }
  }

  async delete(key: string): Promise<void> {
    const { sdk, client } = await this.connecting;
    try {
      await client.send(new sdk.s3.DeleteObjectCommand({ Bucket: this.options.bucket, Key: checkKey(key) }));
    } catch (err) {
      throw storageError(sdk, err, key);
    }
  }

  async *list(prefix: string): AsyncIterable<StoredObject> {
    const { sdk, client } = await this.connecting;
    let token: string | undefined;
    do {
      let page;
      try {
        page = await client.send(new sdk.s3.ListObjectsV2Command({ Bucket: this.options.bucket, Prefix: prefix, ContinuationToken: token }));
      } catch (err) {
        throw storageError(sdk, err, `listing ${prefix}`);
      }
      for (const object of page.Contents ?? []) {
        if (object.Key) yield { key: object.Key, size: object.Size ?? 0, lastModified: object.LastModified ?? new Date(0) };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async close(): Promise<void> {
    // A store whose SDK did not load has nothing to close.
    const connection = await this.connecting.catch(() => undefined);
    connection?.client.destroy();
  }
}

function statusOf(err: unknown): number | undefined {
  return (err as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;
}

/** What the store said, with what we were doing: `S3: AccessDenied (HTTP 403) on uploads/…`. */
function storageError(sdk: S3Sdk, err: unknown, what: string): StorageUnavailableError {
  if (err instanceof sdk.s3.S3ServiceException) return new StorageUnavailableError(`S3: ${err.name}${statusOf(err) ? ` (HTTP ${statusOf(err)})` : ''} on ${what}: ${err.message}`);
  return new StorageUnavailableError(`S3 unreachable on ${what}: ${(err as Error)?.message ?? String(err)}`);
}
