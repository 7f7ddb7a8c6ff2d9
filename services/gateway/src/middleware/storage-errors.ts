/**
 * Errors that mean Redis (records, queues, keys) is unreachable, or has no master for the keys
 * while a Sentinel or Cluster failover runs (CLUSTERDOWN, TRYAGAIN, READONLY, …). They become 503 E006 / 500-002
 * with Retry-After instead of a 500, and never crash the gateway.
 */
export function isStorageUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (['MaxRetriesPerRequestError', 'AbortError'].includes(err.name)) return true;
  if (err.name === 'ClusterAllFailedError') return true;
  return /Stream isn't writeable|enableOfflineQueue|Connection is closed|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|Redis|connect|CLUSTERDOWN|TRYAGAIN|MASTERDOWN|READONLY|LOADING|slots cache|Cluster redirections|sentinels are unreachable/i.test(err.message);
}
