import os from 'node:os';
import Joi from 'joi';
import { documentStoreEnvSchema, type DocumentStoreConfig } from '@gleaner/object-store';
import { commonEnvSchema, loadConfig, type CommonConfig } from '@gleaner/platform';

export interface ParserWorkerConfig extends CommonConfig, DocumentStoreConfig {
  /** Parse jobs run at once; each runs in its own thread. Default: defaultParseConcurrency(). */
  PARSER_CONCURRENCY: number;
  /** tesseract.js workers of the process's one OCR pool, shared by all jobs (60 MB each idle, 120-130 MB once it has read an A4 page at 300 DPI). */
  PARSER_OCR_WORKERS: number;
  /** Resident size (MB) above which OCR pages are read one at a time and idle OCR workers stop at once; 0: none. */
  PARSER_MEMORY_MARK_MB: number;
  /** One deadline for downloading a document: connect, redirects, headers and body together (not retried). */
  PARSER_DOWNLOAD_TIMEOUT_MS: number;
  /** Time budget of one document (download excluded), whatever its pages. */
  PARSER_JOB_BUDGET_MS: number;
  /** Time allowed per page really read: a parse may run this long per page read and one more, at most PARSER_JOB_BUDGET_MS. */
  PARSER_PAGE_BUDGET_MS: number;
  /** Running jobs one account may hold over every process of this service; unset: half of the concurrency, 0: no cap. */
  ACCOUNT_MAX_CONCURRENT_JOBS?: number;
  HEALTH_PORT: number;
  /** How often stored uploads past their lifetime are looked for (one worker of the deployment sweeps). */
  DOCUMENT_STORE_SWEEP_INTERVAL_MS: number;
}

/**
 * One parse thread fewer than the cores, at least one: the process's OCR workers (one a core),
 * its main thread (downloads, records, progress) and libvips's threads use the cores too, so a
 * parse thread for every core mostly waits for a core, while it holds its own heap (~50 MB with the
 * libraries loaded) and its job's pages. On two cores, one parse thread against two, through the
 * API: both corpora 398 against 478 MB at peak in 59 against 52 s, their text documents alone
 * (three times over) 411 against 531 MB in 23 against 20 s. A lone scan is as fast (TAMReview,
 * 23-25 s either way): a job's share of the OCR workers (ocrShare) grows as the threads fall.
 */
export function defaultParseConcurrency(cores = os.availableParallelism()): number {
  return Math.max(1, cores - 1);
}

export const parserWorkerEnvSchema = Joi.object({
  ...commonEnvSchema,
  ...documentStoreEnvSchema,
  DOCUMENT_STORE_SWEEP_INTERVAL_MS: Joi.number().integer().min(1_000).default(3600_000),
  PARSER_CONCURRENCY: Joi.number().integer().min(1).max(64).default(defaultParseConcurrency()),
  PARSER_OCR_WORKERS: Joi.number().integer().min(1).max(64).default(Math.max(1, os.availableParallelism())),
  PARSER_MEMORY_MARK_MB: Joi.number().integer().min(0).max(1_048_576).default(0),
  PARSER_DOWNLOAD_TIMEOUT_MS: Joi.number().integer().min(100).max(3_600_000).default(120_000),
  PARSER_JOB_BUDGET_MS: Joi.number().integer().min(1_000).default(10 * 60_000),
  PARSER_PAGE_BUDGET_MS: Joi.number().integer().min(1_000).default(2 * 60_000),
  ACCOUNT_MAX_CONCURRENT_JOBS: Joi.number().integer().min(0).max(10_000),
  HEALTH_PORT: Joi.number().port().default(0),
});

export function loadParserWorkerConfig(env: NodeJS.ProcessEnv = process.env): ParserWorkerConfig {
  return loadConfig<ParserWorkerConfig>(parserWorkerEnvSchema, env);
}
