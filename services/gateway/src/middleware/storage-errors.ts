/**
 * Errors that mean Redis (records, queues, keys) is unreachable. They become 503 E006 / 500-002
 * with Retry-After instead of a 500, and never crash the gateway.
 */
export function isStorageUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (['MaxRetriesPerRequestError', 'AbortError'].includes(err.name)) return true;
  return /Stream isn't writeable|enableOfflineQueue|Connection is closed|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|Redis|connect/i.test(err.message);
}
