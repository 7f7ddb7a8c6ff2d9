import type { Readable } from 'node:stream';
import {
  CreateBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  ListObjectsV2Command,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
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

/**
 * Objects in an S3-compatible bucket, through the AWS SDK v3 (`@aws-sdk/client-s3`, streaming
 * multipart uploads with `@aws-sdk/lib-storage`): every parser worker, on any machine, reads what
 * any gateway stored.
 */
export class S3Store implements DocumentStore {
  readonly kind = 's3';
  private readonly client: S3Client;

  constructor(private readonly options: S3StoreOptions) {
    this.client = new S3Client({
      region: options.region,
      endpoint: options.endpoint,
      forcePathStyle: options.forcePathStyle,
      credentials: options.credentials,
      // Checksums only where S3 requires them: several S3-compatible stores reject the newer
      // default (CRC32 trailers on every upload).
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  /** Creates the bucket when it does not exist (a fresh MinIO); an existing one is left as it is. */
  async ensureBucket(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.options.bucket }));
    } catch (err) {
      if (statusOf(err) !== 404) throw storageError(err, `bucket ${this.options.bucket}`);
      await this.client.send(new CreateBucketCommand({ Bucket: this.options.bucket })).catch((created) => {
        // Another process created it meanwhile.
        if ((created as Error).name !== 'BucketAlreadyOwnedByYou') throw storageError(created, `bucket ${this.options.bucket}`);
      });
    }
  }

  async put(key: string, body: Readable): Promise<{ bytes: number }> {
    let bytes = 0;
    body.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
    });
    // A body that fails makes the upload fail: lib-storage aborts the multipart upload it started.
    const failed = new Promise<never>((_resolve, reject) => body.once('error', reject));
    const upload = new Upload({ client: this.client, params: { Bucket: this.options.bucket, Key: checkKey(key), Body: body }, partSize: PART_BYTES, queueSize: 1 });
    try {
      await Promise.race([upload.done(), failed]);
    } catch (err) {
      await upload.abort().catch(() => undefined);
      // The body's own error (too large, wrong type) is the reason, not what the store said after.
      throw body.errored ?? storageError(err, key);
    }
    return { bytes };
  }

  async read(key: string): Promise<Buffer> {
    try {
      const answer = await this.client.send(new GetObjectCommand({ Bucket: this.options.bucket, Key: checkKey(key) }));
      return Buffer.from(await answer.Body!.transformToByteArray());
    } catch (err) {
      if (statusOf(err) === 404) throw new ObjectMissingError(key);
      throw storageError(err, key);
    }
  }

  async delete(key: string): Promise<void> {
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.options.bucket, Key: checkKey(key) }));
    } catch (err) {
      throw storageError(err, key);
    }
  }

  async *list(prefix: string): AsyncIterable<StoredObject> {
    let token: string | undefined;
    do {
      let page;
      try {
        page = await this.client.send(new ListObjectsV2Command({ Bucket: this.options.bucket, Prefix: prefix, ContinuationToken: token }));
      } catch (err) {
        throw storageError(err, `listing ${prefix}`);
      }
      for (const object of page.Contents ?? []) {
        if (object.Key) yield { key: object.Key, size: object.Size ?? 0, lastModified: object.LastModified ?? new Date(0) };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}

function statusOf(err: unknown): number | undefined {
  return (err as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;
}

/** What the store said, with what we were doing: `S3: AccessDenied (HTTP 403) on uploads/…`. */
function storageError(err: unknown, what: string): StorageUnavailableError {
  if (err instanceof S3ServiceException) return new StorageUnavailableError(`S3: ${err.name}${statusOf(err) ? ` (HTTP ${statusOf(err)})` : ''} on ${what}: ${err.message}`);
  return new StorageUnavailableError(`S3 unreachable on ${what}: ${(err as Error)?.message ?? String(err)}`);
}
