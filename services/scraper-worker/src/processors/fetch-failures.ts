import { FetchError, PRIVATE_ADDRESS_REFUSED } from '@gleaner/safe-fetch';
import { JobFailure } from '@gleaner/worker-runtime';

/** Current scraper: a failed fetch as "E0xx: message" (E003 for refused URLs, E008 otherwise). */
export function scrapeFetchFailure(err: unknown): JobFailure {
  if (!(err instanceof FetchError)) return new JobFailure('E008', `fetch failed: ${(err as Error).message}`, true);
  switch (err.kind) {
    case 'invalid_url':
      return new JobFailure('E003', err.message, false, [], undefined, { cause: err });
    case 'blocked_address':
      return new JobFailure('E003', `url ${PRIVATE_ADDRESS_REFUSED}`, false, [], undefined, { cause: err });
    default:
      return new JobFailure('E008', err.message, err.transient, [], undefined, { cause: err });
  }
}

/** v1: the code is the HTTP status the caller sees (403 refused by the target, 404 missing page). */
export function v1FetchFailure(err: unknown): JobFailure {
  if (!(err instanceof FetchError)) return new JobFailure('500', `fetch failed: ${(err as Error).message}`, true);
  if (err.kind === 'invalid_url' || err.kind === 'blocked_address') return new JobFailure('400', err.message, false);
  if (err.kind === 'blocked') return new JobFailure('403', err.message, false);
  if (err.kind === 'http_status' && (err.statusCode === 404 || err.statusCode === 410)) return new JobFailure('404', err.message, false);
  if (err.kind === 'http_status' && (err.statusCode === 401 || err.statusCode === 403)) return new JobFailure('403', err.message, false);
  return new JobFailure('500', err.message, err.transient);
}
