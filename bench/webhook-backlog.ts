/**
 * What the per-account cap on webhook deliveries costs when one account has a large backlog over
 * its cap (prints figures; not a test). One real webhook-dispatcher process, default settings
 * (32 slots, 30 s attempts, cap 16 per account); account A has BENCH_BACKLOG deliveries to a
 * receiver that never answers, so 16 hang and the rest are put back as delayed jobs again and
 * again. Over BENCH_DURATION_S: the dispatcher's and Redis's CPU use (Redis's counts all its
 * clients: run it on a quiet Redis), queue events a second (three per deferral: active, delayed,
 * waiting), and how long account B's delivery to a prompt receiver takes, one every 2 s.
 * Run: pnpm bench:webhook-backlog
 *   env: BENCH_BACKLOG (2000), BENCH_DURATION_S (20), BENCH_REDIS_URL (redis://127.0.0.1:6379/11)
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { Redis } from 'ioredis';
import { newRequestId } from '@gleaner/platform';
import { QueueProducer, webhookQueue } from '@gleaner/queues';
import { createStores } from '@gleaner/store';
import { startService } from '../tests/support/processes.js';
import { startWebhookReceiver, waitFor } from '../tests/support/webhook-receiver.js';

const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/11';
const BACKLOG = Number(process.env.BENCH_BACKLOG ?? 2000);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 20);
const SECRET = 'bench-secret-0123456789abcdef';
const prefix = `bench-webhook-backlog-${randomBytes(4).toString('hex')}`;

const cpuSeconds = (pid: number) => {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in clock ticks of 1/100 s
};

const redis = new Redis(REDIS_URL);
const stores = createStores(redis, prefix, SECRET);
const connection = { target: { kind: 'server' as const, url: REDIS_URL }, prefix };
const producer = new QueueProducer(webhookQueue, connection);
const hanging = await startWebhookReceiver(['hang']);
const prompt = await startWebhookReceiver([200]);
const dispatcher = startService('webhook-dispatcher', { REDIS_URL, GLEANER_REDIS_PREFIX: prefix, GLEANER_SECRET: SECRET, GLEANER_ALLOW_PRIVATE_NETWORKS: 'true', LOG_LEVEL: 'warn', NODE_ENV: 'production' });
try {
  const record = async (accountId: string) => {
    const id = newRequestId();
    await stores.records.create({ id, family: 'scrape', accountId, input: { url: 'https://example.com/' }, status: 'completed', result: { text: 'done', meta: { title: 'Done', description: '' }, links: [], images: [] } });
    return id;
  };
  const a = await stores.accounts.createAccount('backlog');
  const b = await stores.accounts.createAccount('neighbour');
  const aRequest = await record(a.id);
  await dispatcher.waitFor(/ready/, 90_000);

  for (let n = 0; n < BACKLOG; n += 200) {
    await Promise.all(Array.from({ length: Math.min(200, BACKLOG - n) }, (_, i) => producer.add({ deliveryId: `a-${n + i}`, requestId: aRequest, accountId: a.id, family: 'scrape', url: hanging.url }, `a-${n + i}`)));
  }
  await waitFor(() => hanging.inFlight(), (k) => k >= 16, 60_000);
  const pid = dispatcher.child.pid!;
  const eventsAdded = async () => {
    const info = (await redis.call('XINFO', 'STREAM', `${prefix}:webhook:events`)) as unknown[];
    return Number(info[info.indexOf('entries-added') + 1]);
  };
  const redisCpu = async () => {
    const info = await redis.info('cpu');
    return Number(/used_cpu_user:([\d.]+)/.exec(info)![1]) + Number(/used_cpu_sys:([\d.]+)/.exec(info)![1]);
  };
  const redisCpu0 = await redisCpu();
  const cpu0 = cpuSeconds(pid);
  const events0 = await eventsAdded();
  const t0 = Date.now();
  const waits: number[] = [];
  for (let n = 0; Date.now() - t0 < DURATION_S * 1000; n++) {
    // A record per delivery: a delivery whose record says delivered is not sent again.
    const bRequest = await record(b.id);
    const sent = Date.now();
    await producer.add({ deliveryId: `b-${n}`, requestId: bRequest, accountId: b.id, family: 'scrape', url: prompt.url }, `b-${n}`);
    await waitFor(() => prompt.deliveries.length, (k) => k > n, 60_000);
    if (!prompt.deliveries[n]) throw new Error(`B's delivery did not arrive within 60 s (${(await eventsAdded()) - events0} queue events so far); job: ${JSON.stringify(await redis.hgetall(`${prefix}:webhook:b-${n}`))} dispatcher:\n${dispatcher.output().slice(-3000)}`);
    waits.push(prompt.deliveries[n].at - sent);
    await new Promise((r) => setTimeout(r, 2_000));
  }
  const seconds = (Date.now() - t0) / 1000;
  const cpu = cpuSeconds(pid) - cpu0;
  const redisCpuUsed = (await redisCpu()) - redisCpu0;
  const events = (await eventsAdded()) - events0;
  const sorted = [...waits].sort((x, y) => x - y);
  process.stdout.write(
    `webhook backlog: A ${BACKLOG} deliveries (${hanging.inFlight()} hanging, the rest over its cap), ${seconds.toFixed(0)} s: dispatcher CPU ${((cpu / seconds) * 100).toFixed(0)} % of a core, Redis ${((redisCpuUsed / seconds) * 100).toFixed(0)} % (all its clients), ` +
      `${(events / seconds).toFixed(0)} queue events/s (3 per deferral: active, delayed, waiting), B's delivery ${sorted[0]}-${sorted.at(-1)} ms (median ${sorted[Math.floor(sorted.length / 2)]} ms, ${waits.length} deliveries)\n`,
  );
} finally {
  await dispatcher.kill('SIGKILL');
  await hanging.close();
  await prompt.close();
  await producer.close();
  const keys = await redis.keys(`${prefix}:*`);
  for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500));
  redis.disconnect();
}
