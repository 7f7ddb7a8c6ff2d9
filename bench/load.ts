/**
 * Gateway throughput and queue overhead, side by side in one run on this machine (prints figures;
 * not a test). Every HTTP server under load runs in its own process; autocannon runs here.
 *   (a) status reads     GET /web-scrapper/{id} of a completed request, through the gateway process
 *   (b) cached scrapes   POST /web-scrapper/ {url, use_cache: true}, through the gateway process
 *   (c) bare express 5   GET of the same status body (same size), kept in memory, res.json() per
 *                        request, no middleware: the ceiling for a Node HTTP + JSON answer here
 *       Same connections and duration for each, in rounds (c, a, b, c, a, b, ...) so that load
 *       changes on the machine weigh on all three: requests/s, p50/p99, and the median over the
 *       rounds of gateway/bare within a round (target >= 0.5x).
 *   (d) queue round trip of the 20 s window, N sequential trips, the sides interleaved so all
 *       see the same machine load: through the gateway (HTTP POST → 200), raw BullMQ (`queue.add`
 *       + `job.waitUntilFinished(queueEvents)`), both with a trivial processor in this process on
 *       the same Redis, and the same POST to bare express answered at once. The window's overhead
 *       is the gateway's trip less bare express's (the HTTP both pay, raw BullMQ none), against
 *       raw BullMQ's trip (target <= 2x); the whole trip's ratio is printed too. What each side
 *       includes is printed with the figures. Also, for information: the same trip with the real
 *       scraper-worker process and a tiny local page (fetch + extraction in a thread).
 * The gateway runs with NODE_ENV=production, LOG_LEVEL=warn, private networks allowed (the targets
 * are local) and a rate limit high enough never to answer 429. Its own Redis key prefix, deleted at
 * the end (BENCH_REDIS_URL, default redis://127.0.0.1:6379/11).
 * Run: node --import tsx bench/load.ts
 *   env: BENCH_CONNECTIONS (10), BENCH_DURATION_S (5, per round), BENCH_ROUNDS (3), BENCH_ROUNDTRIPS (200), BENCH_REDIS_URL
 */
import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { Queue, QueueEvents, Worker, type ConnectionOptions } from 'bullmq';
import type expressType from 'express';
import { Redis } from 'ioredis';
import { bullmqConnection, createLogger } from '@gleaner/platform';
import { QueueProducer, scrapeQueue, webhookQueue } from '@gleaner/queues';
import { createStores } from '@gleaner/store';
import { runRecordedJob, WorkerRegistry, type RecordedJobContext } from '@gleaner/worker-runtime';
import { startGatewayProcess } from '../tests/support/gateway-process.js';
import { html, startPageServer } from '../tests/support/page-server.js';
import { REPO_ROOT, startProcess, startService, type ServiceProcess } from '../tests/support/processes.js';
import { WEB_CORPUS } from '../tests/support/web-corpus.js';

const SECRET = 'bench-secret-0123456789abcdef';

const quantile = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))];
const ms = (v: number) => `${v.toFixed(1)} ms`.padStart(10);
const sleep = (t: number) => new Promise((r) => setTimeout(r, t));
const verdict = (met: boolean) => (met ? 'PASS' : 'FAIL');

interface LoadFigures {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** CPU time the serving process spent per answered request, in µs. */
  cpuUs: number;
}

/** CPU time (user + system) a process has used so far, in ms (Linux /proc; jiffies of 10 ms). */
function cpuMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function load(name: string, opts: autocannon.Options, durationS: number, connections: number, warmUp: boolean, serverPid: number): Promise<LoadFigures> {
  if (warmUp) await autocannon({ ...opts, connections, duration: 2 }); // JIT, connection pools, Redis scripts
  const cpuBefore = cpuMsOf(serverPid);
  const r = await autocannon({ ...opts, connections, duration: durationS });
  const cpuUs = ((cpuMsOf(serverPid) - cpuBefore) * 1000) / Math.max(1, r['2xx']);
  return { name, rps: r['2xx'] / r.duration, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors, cpuUs };
}

async function main(): Promise<void> {
  const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/11';
  // tests/support/redis.js refuses to load without a test Redis (tests never fall back to 6379):
  // the bench names its own, then loads it.
  process.env.GLEANER_TEST_REDIS_URL ??= redisUrl;
  const { deleteKeysWithPrefix } = await import('../tests/support/redis.js');
  const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
  const durationS = Number(process.env.BENCH_DURATION_S ?? 5);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const roundTrips = Number(process.env.BENCH_ROUNDTRIPS ?? 200);
  const prefix = `bench-load-${randomBytes(4).toString('hex')}`;
  const env = {
    REDIS_URL: redisUrl,
    GLEANER_REDIS_PREFIX: prefix,
    NODE_ENV: 'production',
    GLEANER_SECRET: SECRET,
    GLEANER_ALLOW_PRIVATE_NETWORKS: 'true',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    DEFAULT_RATE_LIMIT_PER_MINUTE: '1000000',
  };
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'gleaner-bench-'));
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 2 });
  const processes: ServiceProcess[] = [];
  const cleanups: Array<() => Promise<unknown>> = [];
  const loadBefore = os.loadavg()[0];
  try {
    const stores = createStores(redis, prefix, SECRET);
    const account = await stores.accounts.createAccount('bench');
    await stores.accounts.setRateLimit(account.id, 1_000_000); // the store's maximum: never reached here
    const { apiKey } = await stores.accounts.createApiKey(account.id);

    const article = readFileSync(path.join(WEB_CORPUS, 'ars-1/source.html'), 'utf8');
    const pages = await startPageServer({
      '/article': (_req, res) => void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(article),
      '/tiny': html('<article><h1>Tiny</h1><p>A tiny page, so the round trip is mostly the queue.</p></article>', '<title>Tiny</title>'),
    });
    cleanups.push(() => pages.close());
    const [gateway, scraper] = await Promise.all([startGatewayProcess(env), (async () => {
      const p = startService('scraper-worker', env);
      await p.waitFor(/ready/, 90_000);
      return p;
    })()]);
    processes.push(gateway.process, scraper);
    const headers = { 'x-api-key': apiKey, 'content-type': 'application/json' };
    // node:http with one kept-alive socket, not fetch: undici's own cost per request (about 1.3 ms
    // here against 0.9 ms for a whole node:http POST round trip to bare express) is the client's,
    // and it would count as gateway overhead in (d).
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    cleanups.push(async () => agent.destroy());
    const post = (body: unknown, url = `${gateway.url}/web-scrapper/`) =>
      new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
        const text = JSON.stringify(body);
        const req = http.request(url, { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(text) } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> }));
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end(text);
      });

    // A real completed request (a 56 KB article through the real scraper-worker) and its cache entry.
    const scraped = await post({ url: `${pages.url}/article` });
    if (scraped.status !== 200) throw new Error(`setup scrape answered ${scraped.status}: ${JSON.stringify(scraped.body)}`);
    const statusPath = `/web-scrapper/${scraped.body.request_id}`;
    const statusText = await (await fetch(`${gateway.url}${statusPath}`, { headers })).text();
    const cachedBody = JSON.stringify({ url: `${pages.url}/article`, use_cache: true });
    const cached = await post(JSON.parse(cachedBody));
    if (cached.status !== 200 || cached.body.cached !== true) throw new Error(`cached scrape answered ${cached.status}`);
    const bodyFile = path.join(tmp, 'status.json');
    writeFileSync(bodyFile, statusText);

    // For information: the whole product path with a real worker and a tiny page.
    const realTrips: number[] = [];
    for (let i = 0; i < Math.min(60, roundTrips) + 5; i++) {
      const started = performance.now();
      const r = await post({ url: `${pages.url}/tiny` });
      if (r.status !== 200) throw new Error(`tiny scrape answered ${r.status}`);
      if (i >= 5) realTrips.push(performance.now() - started);
    }
    await scraper.kill('SIGTERM'); // from here the scrape queue is served by the trivial processor

    const bare = startProcess(process.execPath, ['--import', 'tsx', 'bench/load.ts', '--serve-bare', bodyFile], { NODE_ENV: 'production' });
    processes.push(bare);
    const barePort = Number(/bare listening on (\d+)/.exec(await bare.waitFor(/bare listening on \d+/))![1]);

    // (a) (b) (c)
    // In rounds (bare, status, cached; again), so that a change in the machine's load during the
    // run weighs on every side alike; each ratio is taken within a round, the median one printed.
    const gatewayPid = gateway.process.child.pid!;
    const targets: Array<[string, autocannon.Options, number]> = [
      ['(c) bare express 5, same JSON from memory', { url: `http://127.0.0.1:${barePort}/json` }, bare.child.pid!],
      ['(a) gateway status read', { url: `${gateway.url}${statusPath}`, headers: { 'x-api-key': apiKey } }, gatewayPid],
      ['(b) gateway cached scrape', { url: `${gateway.url}/web-scrapper/`, method: 'POST', headers, body: cachedBody }, gatewayPid],
    ];
    const perRound: LoadFigures[][] = [];
    for (let round = 0; round < rounds; round++) {
      const figs: LoadFigures[] = [];
      for (const [name, opts, pid] of targets) figs.push(await load(name, opts, durationS, connections, round === 0, pid));
      perRound.push(figs);
    }
    const median = (values: number[]) => quantile(values, 0.5);
    const figures: LoadFigures[] = targets.map(([name], i) => ({
      name,
      rps: median(perRound.map((figs) => figs[i].rps)),
      p50: median(perRound.map((figs) => figs[i].p50)),
      p99: median(perRound.map((figs) => figs[i].p99)),
      non2xx: perRound.reduce((n, figs) => n + figs[i].non2xx, 0),
      errors: perRound.reduce((n, figs) => n + figs[i].errors, 0),
      cpuUs: median(perRound.map((figs) => figs[i].cpuUs)),
    }));
    const ratios = targets.map((_, i) => perRound.map((figs) => figs[i].rps / figs[0].rps));

    // (d) the trivial processor behind the gateway runs the product's record lifecycle
    // (runRecordedJob: record read, record → completed, webhook lookup), as real workers do.
    const logger = createLogger('bench', 'error');
    const connection = { target: { kind: 'server' as const, url: redisUrl }, prefix };
    const webhooks = new QueueProducer(webhookQueue, connection);
    const ctx: RecordedJobContext = { records: stores.records, subscriptions: stores.subscriptions, webhooks, logger, includeTraces: false, unexpectedError: (e) => ({ code: 'E008', message: e.message }) };
    const registry = new WorkerRegistry(connection, logger);
    registry.register(scrapeQueue, (p, job) => runRecordedJob('scrape', job, p.requestId, ctx, async () => ({ result: { text: 'ok', meta: { title: '', description: '' }, links: [], images: [] } })), { concurrency: 1 });
    const rawName = 'bench-raw';
    // Connection settings as our producers and workers use them (fail-fast producer, blocking worker).
    const rawConnection = (role: 'producer' | 'worker') => bullmqConnection(connection.target, role) as ConnectionOptions;
    const rawQueue = new Queue(rawName, { connection: rawConnection('producer'), prefix, defaultJobOptions: { removeOnComplete: { age: 3600, count: 10_000 } } });
    const rawEvents = new QueueEvents(rawName, { connection: rawConnection('worker'), prefix });
    const rawWorker = new Worker(rawName, async () => ({ ok: true }), { connection: rawConnection('worker'), prefix, concurrency: 1 });
    cleanups.push(async () => {
      await registry.close();
      await rawWorker.close();
      await rawEvents.close();
      await rawQueue.close();
      await webhooks.close();
    });
    await Promise.all([registry.waitUntilReady(), rawEvents.waitUntilReady(), rawWorker.waitUntilReady()]);
    const viaGateway: number[] = [];
    const viaBullmq: number[] = [];
    const viaBareHttp: number[] = [];
    const submitBody = { url: 'http://127.0.0.1:9/trivial' };
    const answerSizes = { gateway: 0, bare: 0 };
    for (let i = 0; i < roundTrips + 10; i++) {
      let started = performance.now();
      const r = await post(submitBody);
      const gatewayMs = performance.now() - started;
      if (r.status !== 200) throw new Error(`trivial submit answered ${r.status}: ${JSON.stringify(r.body)}`);
      started = performance.now();
      const job = await rawQueue.add('trivial', { n: i });
      await job.waitUntilFinished(rawEvents, 20_000);
      const rawMs = performance.now() - started;
      // The same POST, same client and body, to bare express answering the gateway's 200 body at
      // once: the HTTP part of the gateway's trip, which raw BullMQ does not have.
      started = performance.now();
      const b = await post(submitBody, `http://127.0.0.1:${barePort}/submit`);
      const bareMs = performance.now() - started;
      if (b.status !== 200) throw new Error(`bare submit answered ${b.status}`);
      answerSizes.gateway = JSON.stringify(r.body).length;
      answerSizes.bare = JSON.stringify(b.body).length;
      if (i >= 10) {
        viaGateway.push(gatewayMs);
        viaBullmq.push(rawMs);
        viaBareHttp.push(bareMs);
      }
      await sleep(2);
    }

    const loadAfter = os.loadavg()[0];
    const [bareFig] = figures;
    console.log(`Gleaner gateway load bench — ${os.cpus().length} CPUs, load average ${loadBefore.toFixed(2)} → ${loadAfter.toFixed(2)}, node ${process.version}`);
    console.log(`bodies: status ${statusText.length} B, cached scrape ${JSON.stringify(cached.body).length} B, bare ${statusText.length} B`);
    console.log(`\nautocannon: ${connections} connections, ${rounds} rounds of ${durationS} s per target (after a 2 s warm-up); medians over the rounds`);
    console.log(`${'target'.padEnd(44)} ${'req/s'.padStart(9)} ${'p50'.padStart(10)} ${'p99'.padStart(10)}  vs bare  non-2xx errors  server CPU/req`);
    figures.forEach((f, i) => {
      const ratio = f === bareFig ? '      —' : `${median(ratios[i]).toFixed(2)}x`.padStart(7);
      console.log(`${f.name.padEnd(44)} ${f.rps.toFixed(0).padStart(9)} ${ms(f.p50)} ${ms(f.p99)}  ${ratio}  ${String(f.non2xx).padStart(7)} ${String(f.errors).padStart(6)}  ${f.cpuUs.toFixed(0).padStart(8)} µs`);
    });
    console.log('  (server CPU/req: user + system time of the serving process per answered request; steadier than');
    console.log('   req/s when the host is noisy, and the three sides share 2 cores with autocannon and Redis)');
    figures.forEach((f, i) => {
      if (i === 0) return;
      const each = ratios[i].map((r) => r.toFixed(2)).join(', ');
      console.log(`${verdict(median(ratios[i]) >= 0.5)} ${f.name}: ${median(ratios[i]).toFixed(2)}x bare express (rounds: ${each}; target >= 0.5x)`);
    });

    const gMed = quantile(viaGateway, 0.5);
    const rMed = quantile(viaBullmq, 0.5);
    const hMed = quantile(viaBareHttp, 0.5);
    // The window's overhead is what a submit through it costs beyond answering the same POST at
    // once: the gateway's trip less bare express's, trip by trip (interleaved, so both saw the
    // same load), median of the differences.
    const overheads = viaGateway.map((g, i) => g - viaBareHttp[i]);
    const oMed = quantile(overheads, 0.5);
    console.log(`\nqueue round trip, ${roundTrips} sequential trips per side, interleaved (after 10 warm-up trips each)`);
    console.log(`${'side'.padEnd(44)} ${'median'.padStart(10)} ${'p99'.padStart(10)}`);
    console.log(`${'(d) gateway: POST submit → 200, trivial job'.padEnd(44)} ${ms(gMed)} ${ms(quantile(viaGateway, 0.99))}`);
    console.log(`${'    bare express: same POST → 200 at once'.padEnd(44)} ${ms(hMed)} ${ms(quantile(viaBareHttp, 0.99))}   (answers: gateway ${answerSizes.gateway} B, bare ${answerSizes.bare} B)`);
    console.log(`${'    window overhead: gateway − bare express'.padEnd(44)} ${ms(oMed)} ${ms(quantile(overheads, 0.99))}`);
    console.log(`${'    raw BullMQ: add + waitUntilFinished'.padEnd(44)} ${ms(rMed)} ${ms(quantile(viaBullmq, 0.99))}`);
    console.log(`${verdict(oMed / rMed <= 2)} window overhead / raw BullMQ: median ${(oMed / rMed).toFixed(2)}x (target <= 2x)`);
    console.log(`     whole trip through the gateway / raw BullMQ (HTTP included on one side only): median ${(gMed / rMed).toFixed(2)}x, p99 ${(quantile(viaGateway, 0.99) / quantile(viaBullmq, 0.99)).toFixed(2)}x`);
    console.log('  gateway side: HTTP request/answer (node:http, keep-alive), API-key auth, shared rate limit, URL check, request record');
    console.log('    written, job added, usage counted, wait for the record-ending notice; processor = runRecordedJob');
    console.log('    (record read, record → completed with its notice, webhook-subscription lookup) around a no-op');
    console.log('  bare express side: the same client, body and keep-alive socket; express.json() body, a 200 JSON answer of');
    console.log('    the same size as the gateway\'s, no middleware, nothing stored');
    console.log('  raw side: queue.add, a worker running a no-op, job.waitUntilFinished(queueEvents); no HTTP, no record');
    console.log('  gateway and raw: same Redis, same process for the worker, concurrency 1, same job retention');
    console.log(`\nfor information, real scraper-worker + tiny local page (fetch, extraction thread), ${realTrips.length} trips: median ${quantile(realTrips, 0.5).toFixed(1)} ms, p99 ${quantile(realTrips, 0.99).toFixed(1)} ms`);
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    await Promise.all(processes.map((p) => p.kill('SIGTERM')));
    await deleteKeysWithPrefix(prefix, redisUrl);
    redis.disconnect();
    rmSync(tmp, { recursive: true, force: true });
    await sleep(100);
  }
}

if (process.argv[2] === '--serve-bare') {
  // (c), in its own process like the gateway. express is the gateway's own dependency (5.x).
  const express = createRequire(path.join(REPO_ROOT, 'services/gateway/package.json'))('express') as typeof expressType;
  const body = JSON.parse(readFileSync(process.argv[3], 'utf8')) as unknown;
  const app = express();
  app.get('/json', (_req, res) => {
    res.json(body);
  });
  // (d)'s HTTP part: a submit's POST answered at once with a body the size of the gateway's 200
  // for the trivial job (request id, url, text, metadata, empty links and images).
  app.post('/submit', express.json(), (req, res) => {
    const url = (req.body as { url?: unknown }).url;
    res.json({ request_id: randomUUID(), url, status: 'completed', text: 'ok', metadata: { title: '', description: '' }, links: [], images: [], cached: false });
  });
  const server = app.listen(0, '127.0.0.1', () => console.log(`bare listening on ${(server.address() as AddressInfo).port}`));
} else {
  await main();
}
