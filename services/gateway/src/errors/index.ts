import type { ApiFamily, ErrorTable } from './api-error.js';
import { botErrors } from './bot-errors.js';
import { mcpErrors } from './mcp-errors.js';
import { parserErrors } from './parser-errors.js';
import { scraperErrors } from './scraper-errors.js';
import { v1Errors } from './v1-errors.js';

export * from './api-error.js';

export const errorTables: Record<ApiFamily, ErrorTable> = {
  scraper: scraperErrors,
  v1: v1Errors,
  parser: parserErrors,
  bot: botErrors,
  account: scraperErrors,
  mcp: mcpErrors,
};
