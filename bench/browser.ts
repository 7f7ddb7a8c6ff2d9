/**
 * Rendering throughput and memory of the browser-worker, side by side in one run with a bare
 * playwright-core script on the same pages (prints figures; not a test).
 *   pages   the real-site pages of ../shared/corpus/web (93), served by a local server; their
 *           external resources fail at once on both sides (NAMES_FAIL_AT_ONCE)
 *   bare    a process of its own (as the worker is): one Chromium launched once (the same Debian
 *           binary and flags), then per page: a new context, goto (until `load`), content(),
 *           close: BENCH_CONCURRENCY loops in parallel
 *   worker  the browser-worker as a real process (BROWSER_CONCURRENCY = the same), fed through
 *           its render queue with every page at once, each page of its own account (the
 *           per-account cap would otherwise hold one account to half the concurrency); what it
 *           does per page besides the bare script's work: the filtering proxy, blocked
 *           images/fonts/media (the bare script loads them: on these pages nearly all are on
 *           hosts that fail at once), waiting for the page to go quiet, auto-scroll, the DOM
 *           read, the HTML stored in Redis and the job's round trip
 * Each round also prints where a page's time went on each side (mean ms a page per step; the
 * worker's steps are those renderPage times, its context made before them and the job's Redis
 * round trips after them are not counted).
 * Sides are run in rounds (bare, worker at 1, then at 2, …) so that load from others on the
 * machine weighs on both. Memory: peak, sampled every 200 ms, of the worker process plus its
 * Chromium processes, as RSS summed (shared pages counted once per process) and as PSS summed
 * (shared pages split between the processes: their real share). Targets: worker >= 0.8x the
 * bare script's pages per minute; worker + Chromium under 800 MB at concurrency 2.
 * Run: pnpm bench:browser   env: BENCH_PAGES (all), BENCH_ROUNDS (2), BENCH_REDIS_URL
 */
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { renderQueue, QueueProducer } from '@gleaner/queues';
import { createStores } from '@gleaner/store';
import { Redis } from 'ioredis';
import { CHROMIUM_ARGS } from '../services/browser-worker/src/managed-browser.js';
import { memoryOf, processTree } from '../services/browser-worker/src/process-memory.js';
import { startPageServer } from '../tests/support/page-server.js';
import { startProcess, type ServiceProcess } from '../tests/support/processes.js';
import { startServiceOnSimulatedInternet, type SimulatedInternet } from '../tests/support/simulated-internet.js';
import { realSitePages } from '../tests/support/web-corpus.js';

const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/11';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const SECRET = 'bench-secret-0123456789abcdef';
const prefix = `bench-browser-${randomBytes(4).toString('hex')}`;
// tests/support/redis.js refuses to load without a test Redis (tests never fall back to 6379):
// the bench names its own, then loads it.
process.env.GLEANER_TEST_REDIS_URL ??= REDIS_URL;
const { deleteKeysWithPrefix } = await import('../tests/support/redis.js');
/**
 * The pages name dozens of external hosts, and on this closed network the resolver takes 5 s to
 * give up on some of them (Chromium's and getaddrinfo alike: bbc-1 loaded in 18 s): DNS would
 * decide the figures. Both sides are told at once that no name exists: the bare Chromium by its
 * resolver rules, the worker (whose proxy resolves) by a DNS table (tests/support/simulated-internet).
 */
const NAMES_FAIL_AT_ONCE = '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1';
const NO_NAMES: SimulatedInternet = { hosts: { '*': [] } };

interface Side {
  pagesPerMinute: number;
  peakRssMb: number;
  peakPssMb: number;
  /** Mean ms a page in each step (the worker's from its debug log line of each page). */
  steps: Record<string, number>;
}

/** Adds the time since its last call to `into[step]`. */
function stepTimer(into: Record<string, number>): (step: string) => void {
  let last = Date.now();
  return (step) => {
    into[step] = (into[step] ?? 0) + Date.now() - last;
    last = Date.now();
  };
}

const meanSteps = (sums: Record<string, number>, pages: number) => Object.fromEntries(Object.entries(sums).map(([step, ms]) => [step, Math.round(ms / pages)]));
const printSteps = (steps: Record<string, number>) => Object.entries(steps).map(([step, ms]) => `${step} ${ms}`).join(', ');

/** Peak memory of `pids()` while `work` runs, sampled every 200 ms. */
async function withPeakMemory<T>(pids: () => number[], work: () => Promise<T>): Promise<{ value: T; peakRssMb: number; peakPssMb: number }> {
  let peakRssMb = 0;
  let peakPssMb = 0;
  const sample = () => {
    const m = memoryOf(pids());
    peakRssMb = Math.max(peakRssMb, m.rssMb);
    peakPssMb = Math.max(peakPssMb, m.pssMb);
  };
  const timer = setInterval(sample, 200);
  try {
    const value = await work();
    sample();
    return { value, peakRssMb, peakPssMb };
  } finally {
    clearInterval(timer);
  }
}

/** The bare script itself, run in a process of its own (`--bare`): prints how long its pages took. */
async function bareScript(urls: string[], concurrency: number): Promise<void> {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: [...CHROMIUM_ARGS, NAMES_FAIL_AT_ONCE] });
  try {
    const queue = [...urls];
    const stepMs: Record<string, number> = {};
    const started = Date.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        for (let url = queue.shift(); url; url = queue.shift()) {
          const lap = stepTimer(stepMs);
          const context = await browser.newContext();
          lap('context');
          const page = await context.newPage();
          lap('page');
          await page.goto(url, { timeout: 60_000 }).catch(() => undefined);
          lap('goto');
          await page.content();
          lap('content');
          await context.close();
          lap('close');
        }
      }),
    );
    console.log(`bare steps ${JSON.stringify(stepMs)}`);
    console.log(`bare done in ${Date.now() - started} ms`);
  } finally {
    await browser.close();
  }
}

/**
 * The bare script in a child process, as the worker is one: the memory sampling (a /proc walk
 * and smaps_rollup of every Chromium process, 60-150 ms of this thread each time) would
 * otherwise stall the bare script's own Playwright every 200 ms, and not the worker's.
 */
async function bare(urls: string[], concurrency: number): Promise<Side> {
  const proc = startProcess(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--bare', String(concurrency)], { BENCH_BARE_URLS: JSON.stringify(urls) });
  const chromiumPids = () => processTree([proc.child.pid!]).filter((p) => p !== proc.child.pid);
  try {
    const { value: line, peakRssMb, peakPssMb } = await withPeakMemory(chromiumPids, () => proc.waitFor(/bare done in \d+ ms/, 900_000));
    const steps = meanSteps(JSON.parse(/bare steps (.*)/.exec(proc.output())![1]) as Record<string, number>, urls.length);
    return { pagesPerMinute: (urls.length / Number(/\d+/.exec(line)![0])) * 60_000, peakRssMb, peakPssMb, steps };
  } finally {
    await proc.kill();
  }
}

async function worker(urls: string[], concurrency: number): Promise<Side & { failed: number; launches: number }> {
  // MALLOC_ARENA_MAX as the image and `pnpm start` run every service (infra/Dockerfile). At debug
  // level the worker logs each page's step times (one line a page).
  const env = { REDIS_URL, GLEANER_REDIS_PREFIX: prefix, GLEANER_SECRET: SECRET, NODE_ENV: 'production', LOG_LEVEL: 'debug', GLEANER_ALLOW_PRIVATE_NETWORKS: 'true', BROWSER_CONCURRENCY: String(concurrency), MALLOC_ARENA_MAX: '2' };
  const proc: ServiceProcess = startServiceOnSimulatedInternet('browser-worker', env, NO_NAMES);
  const producer = new QueueProducer(renderQueue, { target: { kind: 'server', url: REDIS_URL }, prefix });
  const redis = new Redis(REDIS_URL);
  const pages = createStores(redis, prefix, SECRET).renderedPages;
  try {
    await proc.waitFor(/ready/, 60_000);
    await producer.ready();
    // Chromium starts with the first page: warm it up outside the timing, as the bare side's launch is.
    const warm = await producer.add({ requestId: `warm-${concurrency}`, accountId: 'bench', url: urls[0], timeoutMs: 60_000 }, `warm-${concurrency}-${Date.now()}`);
    await producer.waitForFinish(warm, 120_000);
    const workerPids = () => [proc.child.pid!, ...processTree([proc.child.pid!]).filter((p) => p !== proc.child.pid)];
    const run = `${concurrency}-${Date.now()}`;
    const started = Date.now();
    const { value: outcomes, peakRssMb, peakPssMb } = await withPeakMemory(workerPids, async () => {
      // One account per page: the per-account cap (half the concurrency by default) would hold a
      // single account to one page at a time at concurrency 2, and the bare script has no such rule.
      const jobs = await Promise.all(urls.map((url, i) => producer.add({ requestId: `${run}-${i}`, accountId: `bench-${i}`, url, timeoutMs: 60_000 }, `${run}-${i}`)));
      return Promise.all(jobs.map((job) => producer.waitForFinish(job, 600_000)));
    });
    const elapsed = Date.now() - started;
    const launches = (proc.output().match(/Chromium started/g) ?? []).length;
    const stepSums: Record<string, number> = {};
    const rendered = proc
      .output()
      .split('\n')
      .filter((line) => line.includes('"page rendered"') && line.includes(`"requestId":"${run}-`))
      .map((line) => (JSON.parse(line) as { stepMs: Record<string, number> }).stepMs);
    for (const stepMs of rendered) for (const [step, ms] of Object.entries(stepMs)) stepSums[step] = (stepSums[step] ?? 0) + ms;
    await Promise.all(urls.map((_, i) => pages.take(`${run}-${i}`)));
    return { pagesPerMinute: (urls.length / elapsed) * 60_000, peakRssMb, peakPssMb, steps: meanSteps(stepSums, rendered.length), failed: outcomes.filter((o) => o.outcome !== 'completed').length, launches };
  } finally {
    await producer.close();
    redis.disconnect();
    await proc.kill();
  }
}

async function main(): Promise<void> {
  const corpus = realSitePages();
  const limit = Number(process.env.BENCH_PAGES ?? corpus.length);
  const routes: Parameters<typeof startPageServer>[0] = {};
  for (const p of corpus.slice(0, limit)) routes[`/${p.folder}/`] = (_q, s) => s.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(p.source);
  const site = await startPageServer(routes);
  const urls = Object.keys(routes).map((path) => `${site.url}${path}`);
  console.log(`${urls.length} pages of corpus/web, ${ROUNDS} rounds; Chromium ${(await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS }).then(async (b) => [b.version(), await b.close()][0]))}`);
  try {
    for (const concurrency of [1, 2]) {
      const ratios: number[] = [];
      for (let round = 1; round <= ROUNDS; round++) {
        const b = await bare(urls, concurrency);
        const w = await worker(urls, concurrency);
        ratios.push(w.pagesPerMinute / b.pagesPerMinute);
        console.log(
          `concurrency ${concurrency}, round ${round}: bare ${b.pagesPerMinute.toFixed(0)} pages/min (Chromium peak RSS ${b.peakRssMb} MB, PSS ${b.peakPssMb} MB) | ` +
            `browser-worker ${w.pagesPerMinute.toFixed(0)} pages/min${w.failed ? `, ${w.failed} failed` : ''}, ${w.launches} Chromium launches (worker + Chromium peak RSS ${w.peakRssMb} MB, PSS ${w.peakPssMb} MB) | ratio ${(w.pagesPerMinute / b.pagesPerMinute).toFixed(2)}x`,
        );
        console.log(`  mean ms a page: bare ${printSteps(b.steps)} | browser-worker ${printSteps(w.steps)}`);
      }
      const sorted = [...ratios].sort((a, b) => a - b);
      const mid = Math.floor(sorted.length / 2);
      const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
      console.log(`concurrency ${concurrency}: median ratio ${median.toFixed(2)}x (target >= 0.8x): ${median >= 0.8 ? 'PASS' : 'FAIL'}`);
    }
  } finally {
    await site.close();
    await deleteKeysWithPrefix(prefix, REDIS_URL);
  }
}

if (process.argv[2] === '--bare') await bareScript(JSON.parse(process.env.BENCH_BARE_URLS ?? '[]') as string[], Number(process.argv[3]));
else await main();
