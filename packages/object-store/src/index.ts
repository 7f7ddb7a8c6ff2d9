export { checkKey, ObjectMissingError, StorageUnavailableError, type DocumentStore, type StoredObject } from './document-store.js';
export { LocalFolderStore } from './local-folder-store.js';
export { S3Store, type S3StoreOptions } from './s3-store.js';
export { createDocumentStore, DEFAULT_DOCUMENT_STORE_DIR, documentStoreEnvSchema, prepareDocumentStore, type DocumentStoreConfig } from './config.js';
export { ORPHAN_GRACE_MS, requestIdOfUpload, sweepUploads, UPLOAD_LIFETIME_MS, UPLOAD_PREFIX, uploadKey, type SweepOutcome } from './uploads.js';
