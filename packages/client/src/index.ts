export * from './core.js';
export { GleanerClient, type GleanerClientOptions } from './client.js';
export { DOCUMENT_TYPES } from './types.js';
