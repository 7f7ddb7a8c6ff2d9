import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import Joi from 'joi';
import { createLogger, createRedis, deploymentRedis, isRedisConnectionError, waitForRedis, type DeploymentRedis, type RedisClient } from '@gleaner/platform';
import { createQueueWorker, defineQueue, QueueProducer } from '@gleaner/queues';
import { createStores } from '@gleaner/store';
import { serviceEnv } from './support/env.js';
import { reportFigures } from './support/figures.js';
import { startGatewayProcess, type GatewayProcess } from './support/gateway-process.js';
import { html, startPageServer } from './support/page-server.js';
import { jsonLines, startService, type ServiceProcess } from './support/processes.js';
import { startRedisCluster, startSentinelGroup, type RedisProcess } from './support/redis-ha.mjs';
import { testPrefix } from './support/redis.js';
import { figuresLine, loadFigures, settle, steadyLoad } from './support/steady-load.js';
import { createAccountWithKey } from './support/test-stores.js';

/**
 * Failover without loss (issue 39): a gateway and a scraper worker, as real processes, on a
 * Sentinel group and then on a Cluster, under a steady load of submits; the Redis master holding
 * the deployment's keys is killed (SIGKILL) a few seconds in. Every submit the gateway accepted
 * (200 or 202) completes; the others were refused with 503 while no master answered, never
 * anything else. Neither process is restarted: the worker takes jobs again and the gateway's
 * window hears of their ends again; a BullMQ producer and worker opened before the kill (events
 * included, BullMQ #3088 and #4378: workers hanging after a Sentinel failover) finish a job after it.
 */
const SECRET = 'failover-secret-0123456789abcdef';
const WINDOW_MS = 2_000;
// Load goes on well after the failover (2-6 s after the kill), so that answers given in the
// window again (200) can be seen after it; the recovery itself is held to RECOVERY_MAX_MS.
const LOAD_MS = 14_000;
const KILL_AT_MS = 3_000;
const RECOVERY_MAX_MS = 6_000;

const probeQueue = defineQueue<{ n: number }, number>({ name: 'failover-probe', schema: Joi.object({ n: Joi.number().required() }), jobOptions: { attempts: 3, removeOnComplete: 100 } });

interface HaRedis {
  settings: Record<string, string>;
  /** The master of the deployment's keys now. */
  master(prefix: string): Promise<RedisProcess | undefined>;
  stop(): Promise<void>;
}

async function startHa(mode: 'sentinel' | 'cluster'): Promise<HaRedis> {
  if (mode === 'sentinel') {
    // Two replicas: once one is master, the other still acknowledges the gateway's WAIT.
    const group = await startSentinelGroup({ replicas: 2, downAfterMs: 1_000 });
    return { settings: { REDIS_SENTINELS: group.sentinelsSetting, REDIS_SENTINEL_MASTER: group.masterName }, master: () => group.master(), stop: () => group.stop() };
  }
  const cluster = await startRedisCluster({ nodeTimeoutMs: 2_000 });
  return { settings: { REDIS_CLUSTER_NODES: cluster.nodesSetting }, master: (prefix) => cluster.masterOf(`${prefix}:x`), stop: () => cluster.stop() };
}

/** `producer.add`, tried again every 250 ms while the producer's client is not connected. */
async function addOnceConnected(producer: QueueProducer<{ n: number }, number>, payload: { n: number }, jobId: string, timeoutMs: number) {
  for (const deadline = Date.now() + timeoutMs; ; await new Promise((r) => setTimeout(r, 250))) {
    try {
      return await producer.add(payload, jobId);
    } catch (err) {
      if (Date.now() > deadline || !isRedisConnectionError(err as Error)) throw err;
    }
  }
}

/** A service's log lines at warn or error that are not about reaching Redis (expected here), in short. */
function errorLines(service: string, output: string): string[] {
  return jsonLines(output)
    .filter((line) => (line.level === 'error' || line.level === 'warn') && !/cannot reach|storage unavailable/.test(String(line.message)))
    .slice(-12)
    .map((line) => `${service}: ${String(line.message)} ${JSON.stringify({ ...line, level: undefined, message: undefined, service: undefined, timestamp: undefined }).slice(0, 300)}`);
}

describe.each(['sentinel', 'cluster'] as const)('a %s failover under load', (mode) => {
  // A plain prefix: under Cluster the services (and deploymentRedis here) add the hash tag.
  const prefix = testPrefix(`failover-${mode}`).replace(/[{}]/g, '');
  let ha: HaRedis;
  let deployment: DeploymentRedis;
  let redis: RedisClient;
  let gateway: GatewayProcess;
  let worker: ServiceProcess;
  let pages: Awaited<ReturnType<typeof startPageServer>>;
  let apiKey: string;

  beforeAll(async () => {
    ha = await startHa(mode);
    // Every fourth page takes longer than the window: those submits are answered 202.
    pages = await startPageServer({}, async (req, res) => {
      const n = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('n'));
      await new Promise((r) => setTimeout(r, n % 4 === 0 ? WINDOW_MS + 1_000 : 100));
      await html(`<h1>Page ${n}</h1><p>${'Text of a page that stays up. '.repeat(20)}</p>`)(req, res);
    });
    const env: Record<string, string> = {
      ...serviceEnv(prefix, { GLEANER_SECRET: SECRET, SYNC_WINDOW_MS: String(WINDOW_MS), WORKER_LOCK_DURATION_MS: '5000', WORKER_STALLED_INTERVAL_MS: '2000', DEFAULT_RATE_LIMIT_PER_MINUTE: '100000' }),
      REDIS_URL: 'redis://127.0.0.1:1/0',
    };
    // The suite's own Redis mode (GLEANER_TEST_REDIS_MODE) is not this test's.
    delete env.REDIS_SENTINELS;
    delete env.REDIS_SENTINEL_MASTER;
    delete env.REDIS_CLUSTER_NODES;
    Object.assign(env, ha.settings);
    deployment = deploymentRedis({ ...(env as { REDIS_URL: string }), GLEANER_REDIS_PREFIX: prefix });
    redis = createRedis(deployment.target, 'worker', 'failover-test');
    await waitForRedis(redis);
    apiKey = (await createAccountWithKey(createStores(redis, deployment.prefix, SECRET), `failover-${mode}`)).apiKey;
    worker = startService('scraper-worker', env);
    [gateway] = await Promise.all([startGatewayProcess(env), worker.waitFor(/ready/)]);
  }, 90_000);

  afterAll(async () => {
    await Promise.all([gateway?.process.kill(), worker?.kill()]);
    redis?.disconnect();
    await pages?.close();
    await ha?.stop();
  }, 30_000);

  it('accepts what it can, completes everything it accepted, and comes back without a restart', async () => {
    const logger = createLogger('failover-test', 'error');
    // Opened before the kill: BullMQ's own producer, events and worker must survive it.
    const probe = new QueueProducer(probeQueue, deployment);
    const probeWorker = createQueueWorker(probeQueue, deployment, async ({ n }) => n * 2, { concurrency: 1, logger });
    try {
      await Promise.all([probe.ready(), probeWorker.waitUntilReady()]);
      const before = await probe.add({ n: 1 }, 'before');
      expect(await probe.waitForFinish(before, 10_000)).toEqual({ outcome: 'completed', value: 2 });

      const master = await ha.master(deployment.prefix);
      let killedAt = 0;
      const killer = setTimeout(() => {
        killedAt = Date.now();
        master?.kill();
      }, KILL_AT_MS);
      const shots = await steadyLoad({ gateway: gateway.url, apiKey, page: (n) => `${pages.url}/page?n=${n}&mode=${mode}`, intervalMs: 150, durationMs: LOAD_MS });
      clearTimeout(killer);
      await settle(shots, gateway.url, apiKey, 45_000);
      const figures = loadFigures(shots, killedAt);

      // The producer's client fails fast (as the gateway's): while it is still finding the new
      // master its add is refused, and tried again (on a loaded host it still was when the load
      // ended, 11 s after the kill).
      const after = await addOnceConnected(probe, { n: 21 }, 'after', 20_000);
      const probeAddedAfterKillMs = Date.now() - killedAt;
      const probeFinish = await probe.waitForFinish(after, 20_000);
      // A wait that timed out says where the job stands: still waiting (the worker took nothing
      // after the failover) or finished (its event was not heard).
      const probeOutcome = probeFinish.outcome === 'timeout' ? { ...probeFinish, state: await probe.queue.getJobState(String(after.id)).catch((e: Error) => e.message) } : probeFinish;
      const ready = await fetch(`${gateway.url}/readyz`).then((r) => r.status);
      reportFigures(`${figuresLine(`${mode} failover, master killed ${KILL_AT_MS / 1000} s into ${LOAD_MS / 1000} s of load`, figures)}; probe job added ${(probeAddedAfterKillMs / 1000).toFixed(1)} s after the kill; worker pid ${worker.child.pid} and gateway pid ${gateway.process.child.pid} unchanged`);

      // An answer other than 200, 202 or 503, or an accepted request not completed, comes with what
      // the two services logged as errors, so that a failure on CI says why.
      const said = figures.other > 0 || figures.lost > 0 ? [...errorLines('gateway', gateway.process.output()), ...errorLines('worker', worker.output())] : [];
      expect({ killed: killedAt > 0, other: figures.otherAnswers, lost: figures.lostAs, said, probe: probeOutcome, ready }).toEqual({ killed: true, other: [], lost: [], said: [], probe: { outcome: 'completed', value: 42 }, ready: 200 });
      // Both kinds of answer were given around the fault, and the service came back within the run.
      expect(figures.deferred).toBeGreaterThan(0);
      expect(shots.filter((s) => s.sentAt > killedAt + 1_000 && s.status === 200).length).toBeGreaterThan(0);
      expect(figures.recoveryMs).toBeLessThan(RECOVERY_MAX_MS);
      expect([gateway.alive(), worker.child.exitCode]).toEqual([true, null]);
    } finally {
      // Forced: a graceful close waits for the blocking read of a connection that may still be
      // finding the new master, and nothing of the probe is left to finish.
      await probeWorker.close(true);
      await probe.close();
    }
  }, 150_000);
});
