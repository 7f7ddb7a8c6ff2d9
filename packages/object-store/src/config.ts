import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Joi from 'joi';
import type { DocumentStore } from './document-store.js';
import { LocalFolderStore } from './local-folder-store.js';
import { S3Store } from './s3-store.js';

/** Where `pnpm start` (one machine) keeps uploads: beside the shared secret, git-ignored. */
export const DEFAULT_DOCUMENT_STORE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../.gleaner/uploads');

/** Environment of the services that store or read uploads (gateway, parser-worker). */
export const documentStoreEnvSchema = {
  DOCUMENT_STORE: Joi.string().valid('local', 's3').default('local'),
  DOCUMENT_STORE_DIR: Joi.string().default(DEFAULT_DOCUMENT_STORE_DIR),
  S3_BUCKET: Joi.string().when('DOCUMENT_STORE', { is: 's3', then: Joi.required() }),
  S3_REGION: Joi.string().default('us-east-1'),
  S3_ENDPOINT: Joi.string().uri({ scheme: ['http', 'https'] }),
  S3_FORCE_PATH_STYLE: Joi.boolean().truthy('1').falsy('0').default(false),
  // Both or neither: without them the SDK's default chain applies (instance or task roles). Joi
  // cannot require each from the other (a cycle); createDocumentStore refuses a secret alone.
  S3_ACCESS_KEY_ID: Joi.string(),
  S3_SECRET_ACCESS_KEY: Joi.string().when('S3_ACCESS_KEY_ID', { is: Joi.exist(), then: Joi.required() }),
};

export interface DocumentStoreConfig {
  DOCUMENT_STORE: 'local' | 's3';
  DOCUMENT_STORE_DIR: string;
  S3_BUCKET?: string;
  S3_REGION: string;
  S3_ENDPOINT?: string;
  S3_FORCE_PATH_STYLE: boolean;
  S3_ACCESS_KEY_ID?: string;
  S3_SECRET_ACCESS_KEY?: string;
}

export function createDocumentStore(config: DocumentStoreConfig): DocumentStore {
  if (config.DOCUMENT_STORE === 'local') return new LocalFolderStore(config.DOCUMENT_STORE_DIR);
  if (config.S3_SECRET_ACCESS_KEY && !config.S3_ACCESS_KEY_ID) throw new Error('invalid configuration: "S3_SECRET_ACCESS_KEY" is set without "S3_ACCESS_KEY_ID"');
  return new S3Store({
    bucket: config.S3_BUCKET!,
    region: config.S3_REGION,
    endpoint: config.S3_ENDPOINT,
    forcePathStyle: config.S3_FORCE_PATH_STYLE,
    credentials: config.S3_ACCESS_KEY_ID ? { accessKeyId: config.S3_ACCESS_KEY_ID, secretAccessKey: config.S3_SECRET_ACCESS_KEY! } : undefined,
  });
}

/** Readies a store at boot: an S3 bucket is created when missing (a fresh MinIO). Never fatal: the store may come up later. */
export async function prepareDocumentStore(store: DocumentStore, warn: (message: string) => void): Promise<void> {
  if (!(store instanceof S3Store)) return;
  await store.ensureBucket().catch((err: Error) => warn(`document store not ready yet: ${err.message}`));
}
