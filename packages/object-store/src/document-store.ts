import type { Readable } from 'node:stream';

/** One stored object as a listing shows it. */
export interface StoredObject {
  key: string;
  size: number;
  lastModified: Date;
}

/**
 * Where uploaded documents wait for a parser worker. Keys are paths of `[A-Za-z0-9._-]` segments
 * joined by `/` (`uploads/<requestId>`). Two backends: a local folder (every process on one
 * machine) and an S3-compatible bucket (workers on any machine).
 */
export interface DocumentStore {
  readonly kind: 'local' | 's3';
  /**
   * Stores `body` under `key` while it arrives, never holding it whole in memory. Resolves with
   * the bytes stored; if `body` fails (too large, wrong type, client gone) it rejects with that
   * error and nothing stays under `key`.
   */
  put(key: string, body: Readable): Promise<{ bytes: number }>;
  /** The whole object; ObjectMissingError when nothing is stored under `key`. */
  read(key: string): Promise<Buffer>;
  /** Removes the object; nothing stored is not an error. */
  delete(key: string): Promise<void>;
  /** Every object whose key starts with `prefix`, unfinished uploads included. */
  list(prefix: string): AsyncIterable<StoredObject>;
  close(): Promise<void>;
}

export class ObjectMissingError extends Error {
  override name = 'ObjectMissingError';
  constructor(readonly key: string) {
    super(`nothing is stored under ${key}`);
  }
}

/** The store did not answer or failed on its side (network, 5xx, credentials): worth a retry later. */
export class StorageUnavailableError extends Error {
  override name = 'StorageUnavailableError';
}

const KEY = /^[A-Za-z0-9._-]+(?:\/[A-Za-z0-9._-]+)*$/;

/** Refuses keys that could leave the store's folder or bucket prefix (`..`, absolute paths). */
export function checkKey(key: string): string {
  if (!KEY.test(key) || key.split('/').some((segment) => segment === '.' || segment === '..')) throw new Error(`invalid object key ${JSON.stringify(key)}`);
  return key;
}
