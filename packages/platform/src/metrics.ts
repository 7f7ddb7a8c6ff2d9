import client from 'prom-client';

/**
 * One Prometheus registry per process (all services share it when `pnpm start` runs them
 * together). Metric names are part of the operator surface: never rename one.
 */
export const metricsRegistry = new client.Registry();
client.collectDefaultMetrics({ register: metricsRegistry, prefix: 'gleaner_process_' });

function once<T>(name: string, make: () => T): T {
  return (metricsRegistry.getSingleMetric(name) as T | undefined) ?? make();
}

export const httpRequestDuration = once(
  'gleaner_http_request_duration_seconds',
  () => new client.Histogram({ name: 'gleaner_http_request_duration_seconds', help: 'Gateway HTTP request latency', labelNames: ['method', 'route', 'status'], buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30], registers: [metricsRegistry] }),
);

export const jobDuration = once(
  'gleaner_job_duration_seconds',
  () => new client.Histogram({ name: 'gleaner_job_duration_seconds', help: 'Time a worker spent on a job', labelNames: ['queue', 'outcome'], buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 60, 120, 300, 600], registers: [metricsRegistry] }),
);

export const requestFailures = once(
  'gleaner_request_failures_total',
  () => new client.Counter({ name: 'gleaner_request_failures_total', help: 'Requests that ended failed, by family and error code', labelNames: ['family', 'code'], registers: [metricsRegistry] }),
);

export const ocrPages = once(
  'gleaner_ocr_pages_total',
  () => new client.Counter({ name: 'gleaner_ocr_pages_total', help: 'Pages and images recognised with OCR', registers: [metricsRegistry] }),
);

export const webhookDeliveries = once(
  'gleaner_webhook_deliveries_total',
  () => new client.Counter({ name: 'gleaner_webhook_deliveries_total', help: 'Webhook delivery attempts by outcome (delivered, retry, rejected, failed)', labelNames: ['family', 'outcome'], registers: [metricsRegistry] }),
);

/** The states `gleaner_queue_jobs` reports for every queue (a fixed set: bounded label cardinality). */
export const QUEUE_DEPTH_STATES = ['waiting', 'prioritized', 'active', 'delayed', 'failed', 'completed'] as const;

/**
 * The states whose jobs are a queue's backlog: not finished, whether they wait in BullMQ's `wait`
 * list, in its `prioritized` set (a job with a priority never enters `wait`), as `delayed` jobs
 * (a retry's backoff, a job deferred by its account's cap) or run now. A scaler that read the
 * `wait` list alone would count none of the others.
 */
export const QUEUE_BACKLOG_STATES = ['waiting', 'prioritized', 'delayed', 'active'] as const;

export const queueBacklog = once(
  'gleaner_queue_backlog',
  () => new client.Gauge({ name: 'gleaner_queue_backlog', help: 'Unfinished jobs per queue (waiting, prioritized, delayed, active), sampled at scrape time: what autoscalers scale workers on', labelNames: ['queue'], registers: [metricsRegistry] }),
);

export const queueDepth = once(
  'gleaner_queue_jobs',
  () => new client.Gauge({ name: 'gleaner_queue_jobs', help: 'Jobs per queue and state, sampled at scrape time', labelNames: ['queue', 'state'], registers: [metricsRegistry] }),
);

/** Registers a sampler run before every scrape (e.g. queue depths); returns its removal. */
export function onMetricsScrape(sample: () => Promise<void>): () => void {
  samplers.push(sample);
  return () => {
    const i = samplers.indexOf(sample);
    if (i >= 0) samplers.splice(i, 1);
  };
}
const samplers: Array<() => Promise<void>> = [];

/** A sampler that has not answered by then is skipped for this scrape (worker Redis clients queue commands while Redis is away). */
const SAMPLE_TIMEOUT_MS = 2_000;

export async function renderMetrics(): Promise<{ contentType: string; body: string }> {
  await Promise.all(
    samplers.map((s) => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, SAMPLE_TIMEOUT_MS);
      });
      return Promise.race([s().catch(() => undefined), timeout]).finally(() => clearTimeout(timer));
    }),
  );
  return { contentType: metricsRegistry.contentType, body: await metricsRegistry.metrics() };
}

export const browserPages = once(
  'gleaner_browser_pages_total',
  () => new client.Counter({ name: 'gleaner_browser_pages_total', help: 'Pages the browser-worker rendered, by outcome (rendered, failed, crashed)', labelNames: ['outcome'], registers: [metricsRegistry] }),
);

export const browserLaunches = once(
  'gleaner_browser_launches_total',
  () => new client.Counter({ name: 'gleaner_browser_launches_total', help: 'Chromium launches of the browser-worker, by what ended the one before (first, pages, memory, crash, idle)', labelNames: ['reason'], registers: [metricsRegistry] }),
);

export const browserMemory = once(
  'gleaner_browser_memory_bytes',
  () => new client.Gauge({ name: 'gleaner_browser_memory_bytes', help: "Proportional memory (PSS) of the browser-worker's Chromium processes, sampled at scrape time", registers: [metricsRegistry] }),
);

export const browserRefusedConnections = once(
  'gleaner_browser_refused_connections_total',
  () => new client.Counter({ name: 'gleaner_browser_refused_connections_total', help: "Connections of rendered pages refused by the browser-worker's address policy", registers: [metricsRegistry] }),
);
