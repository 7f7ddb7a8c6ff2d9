export { GleanerClient, type GleanerClientOptions, type ParseProgress, type ScrapeProgress, type WaitOptions } from './client.js';
export { GleanerApiError, GleanerJobFailedError, GleanerTimeoutError } from './errors.js';
export type * from './types.js';
export { DOCUMENT_TYPES } from './types.js';
