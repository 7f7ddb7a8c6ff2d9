/**
 * `pnpm test:multihost` (root; run by hand, not part of `pnpm test`): Gleaner spread over hosts
 * that are network namespaces this script makes, and broken one host at a time under load.
 *
 *   gl39-redis1..3  10.239.0.11-13  redis-server + sentinel each (a master, two replicas, quorum 2)
 *   gl39-gw1, gw2   10.239.0.21-22  a gateway each
 *   gl39-lb         10.239.0.30     haproxy in front of both gateways (:8080)
 *   gl39-wk1, wk2   10.239.0.41-42  a scraper worker each
 *   this machine    10.239.0.1      the bridge gl39-br: the load and the target pages
 *
 * Only 10.239.0.0/16; nothing is routed out (the namespaces have no default route), and every
 * request goes to an address made here. dockerd (when it runs on this machine) sets FORWARD's
 * policy to DROP and loads br_netfilter, which would drop the bridged traffic between the
 * namespaces: ACCEPT rules for the bridge are inserted, marked with a comment, and exactly those
 * are removed at the end, as is everything else made here (also at the start, if a killed run left
 * them). Faults, each under a steady load of submits through haproxy: a worker host's link goes
 * down while it runs jobs; a gateway host goes down; the Redis master's host goes down. Printed:
 * accepted / completed / lost / refused, and recovery times.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createRedis, deploymentRedis, waitForRedis } from '@gleaner/platform';
import { createStores } from '@gleaner/store';
import { haproxyConfig } from '../support/haproxy.js';
import { RUN_PROGRAM, startProcess, type ServiceProcess } from '../support/processes.js';
import { figuresLine, loadFigures, settle, steadyLoad, type Shot } from '../support/steady-load.js';

const PREFIX = 'gl39-';
const BRIDGE = `${PREFIX}br`;
const HOST_ADDRESS = '10.239.0.1';
const COMMENT = 'gl39-multihost';
const HOSTS = { redis1: '10.239.0.11', redis2: '10.239.0.12', redis3: '10.239.0.13', gw1: '10.239.0.21', gw2: '10.239.0.22', lb: '10.239.0.30', wk1: '10.239.0.41', wk2: '10.239.0.42' } as const;
type Host = keyof typeof HOSTS;
const MASTER_NAME = 'gleaner-multihost';
const SECRET = 'multihost-secret-0123456789abcdef';
const WINDOW_MS = 5_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function sh(cmd: string, args: string[], { allowFail = false } = {}): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.status !== 0 && !allowFail) throw new Error(`${cmd} ${args.join(' ')}: ${r.stderr || r.stdout}`);
  return r.stdout ?? '';
}
const ip = (...args: string[]) => sh('ip', args);
const hasIptables = spawnSync('iptables', ['--version']).status === 0;

/** The FORWARD rules of this script (by their comment), as `iptables -D` arguments. */
function ourForwardRules(): string[][] {
  if (!hasIptables) return [];
  return sh('iptables', ['-S', 'FORWARD'], { allowFail: true })
    .split('\n')
    .filter((line) => line.includes(COMMENT))
    .map((line) => line.replace(/^-A /, '').match(/(?:[^\s"]+|"[^"]*")+/g)!.map((a) => a.replace(/^"|"$/g, '')));
}

/** Removes everything of this script's: its namespaces, its bridge and veths, its FORWARD rules. */
function cleanUp(): void {
  for (const rule of ourForwardRules()) sh('iptables', ['-D', ...rule], { allowFail: true });
  for (const ns of sh('ip', ['netns', 'list'], { allowFail: true }).split('\n').map((l) => l.split(' ')[0]).filter((n) => n.startsWith(PREFIX))) {
    // Processes left in it (a killed run) go with it.
    for (const pid of sh('ip', ['netns', 'pids', ns], { allowFail: true }).split('\n').filter(Boolean)) sh('kill', ['-9', pid], { allowFail: true });
    sh('ip', ['netns', 'delete', ns], { allowFail: true });
  }
  for (const link of sh('ip', ['-o', 'link', 'show'], { allowFail: true }).split('\n').map((l) => l.split(': ')[1]?.split('@')[0]).filter((n) => n?.startsWith(PREFIX))) sh('ip', ['link', 'delete', link], { allowFail: true });
}

function makeHosts(): void {
  ip('link', 'add', BRIDGE, 'type', 'bridge');
  ip('addr', 'add', `${HOST_ADDRESS}/16`, 'dev', BRIDGE);
  ip('link', 'set', BRIDGE, 'up');
  if (hasIptables) {
    // Bridged frames between the namespaces pass FORWARD when br_netfilter is loaded (dockerd's policy there is DROP).
    sh('iptables', ['-I', 'FORWARD', '-i', BRIDGE, '-o', BRIDGE, '-m', 'comment', '--comment', COMMENT, '-j', 'ACCEPT']);
  }
  for (const [host, address] of Object.entries(HOSTS)) {
    const ns = `${PREFIX}${host}`;
    ip('netns', 'add', ns);
    ip('link', 'add', `${PREFIX}${host}`, 'type', 'veth', 'peer', 'name', `${PREFIX}${host}-in`);
    ip('link', 'set', `${PREFIX}${host}-in`, 'netns', ns);
    ip('link', 'set', `${PREFIX}${host}`, 'master', BRIDGE);
    ip('link', 'set', `${PREFIX}${host}`, 'up');
    ip('-n', ns, 'link', 'set', 'lo', 'up');
    ip('-n', ns, 'link', 'set', `${PREFIX}${host}-in`, 'name', 'eth0');
    ip('-n', ns, 'addr', 'add', `${address}/16`, 'dev', 'eth0');
    ip('-n', ns, 'link', 'set', 'eth0', 'up');
  }
}

/** A host's link to the bridge, down (its cable out) or up again. */
function link(host: Host, state: 'up' | 'down'): void {
  ip('link', 'set', `${PREFIX}${host}`, state);
}

const procs: ServiceProcess[] = [];
function onHost(host: Host, command: string, args: string[], env: Record<string, string> = {}): ServiceProcess {
  const p = startProcess('ip', ['netns', 'exec', `${PREFIX}${host}`, command, ...args], env);
  procs.push(p);
  return p;
}

async function startRedis(scratch: string): Promise<void> {
  const master = HOSTS.redis1;
  for (const host of ['redis1', 'redis2', 'redis3'] as const) {
    const dir = path.join(scratch, host);
    execFileSync('mkdir', ['-p', dir]);
    const replica = host === 'redis1' ? [] : ['--replicaof', master, '6379'];
    onHost(host, 'redis-server', ['--bind', HOSTS[host], '--port', '6379', '--protected-mode', 'no', '--save', '', '--appendonly', 'yes', '--appendfsync', 'always', '--dir', dir, ...replica]);
    const conf = path.join(dir, 'sentinel.conf');
    writeFileSync(conf, [`port 26379`, `bind ${HOSTS[host]}`, 'protected-mode no', `dir ${dir}`, `sentinel monitor ${MASTER_NAME} ${master} 6379 2`, `sentinel down-after-milliseconds ${MASTER_NAME} 2000`, `sentinel failover-timeout ${MASTER_NAME} 10000`, ''].join('\n'));
    onHost(host, 'redis-server', [conf, '--sentinel']);
  }
  // Replicas in sync, and each sentinel knowing the others, before anything is written.
  for (let i = 0; ; i++) {
    const synced = ['redis2', 'redis3'].every((h) => /master_link_status:up/.test(sh('redis-cli', ['-h', HOSTS[h as Host], 'info', 'replication'], { allowFail: true })));
    const known = (['redis1', 'redis2', 'redis3'] as const).every((h) => /num-other-sentinels\n2\n/.test(sh('redis-cli', ['-h', HOSTS[h], '-p', '26379', 'sentinel', 'master', MASTER_NAME], { allowFail: true })));
    if (synced && known) return;
    if (i > 150) throw new Error('the Redis hosts did not form a Sentinel group');
    await sleep(200);
  }
}

function currentMaster(): string {
  for (const h of ['redis2', 'redis3', 'redis1'] as const) {
    const answer = sh('redis-cli', ['-h', HOSTS[h], '-p', '26379', 'sentinel', 'get-master-addr-by-name', MASTER_NAME], { allowFail: true }).split('\n')[0];
    if (answer) return answer;
  }
  return '';
}

/** Target pages on this machine: /page/<ms>/<anything> answers after ms. */
async function startPages(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    const ms = Number((req.url ?? '').split('/')[2] ?? 0);
    setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><head><title>Page</title></head><body><article><h1>${req.url}</h1><p>${'A paragraph of a page on the test network. '.repeat(10)}</p></article></body></html>`), ms);
  });
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve) => server.listen(0, HOST_ADDRESS, resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://${HOST_ADDRESS}:${port}`, close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }) };
}

interface Phase {
  name: string;
  faultAt: number;
  shots: Shot[];
}

async function main(): Promise<void> {
  if (process.getuid?.() !== 0) throw new Error('pnpm test:multihost needs root (network namespaces, a bridge, iptables)');
  for (const tool of ['ip', 'redis-server', 'redis-cli', 'haproxy']) if (spawnSync('sh', ['-c', `command -v ${tool} || test -x /usr/sbin/${tool}`]).status !== 0) throw new Error(`pnpm test:multihost needs ${tool}`);
  cleanUp();
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'gleaner-multihost-'));
  const started = Date.now();
  const since = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
  let pages: Awaited<ReturnType<typeof startPages>> | null = null;
  try {
    makeHosts();
    await startRedis(scratch);
    console.log(`[${since()}] hosts up: Redis master ${currentMaster()} with two replicas and three sentinels`);
    pages = await startPages();
    const sentinels = (['redis1', 'redis2', 'redis3'] as const).map((h) => `${HOSTS[h]}:26379`).join(',');
    const env = {
      REDIS_SENTINELS: sentinels,
      REDIS_SENTINEL_MASTER: MASTER_NAME,
      GLEANER_REDIS_PREFIX: 'multihost',
      GLEANER_SECRET: SECRET,
      GLEANER_ALLOW_PRIVATE_NETWORKS: 'true',
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      SYNC_WINDOW_MS: String(WINDOW_MS),
      DEFAULT_RATE_LIMIT_PER_MINUTE: '100000',
      ACCOUNT_MAX_CONCURRENT_JOBS: '0',
      WORKER_LOCK_DURATION_MS: '5000',
      WORKER_STALLED_INTERVAL_MS: '2000',
      DOCUMENT_STORE_DIR: path.join(scratch, 'uploads'),
    };
    const deployment = deploymentRedis({ REDIS_URL: 'redis://127.0.0.1:1', ...env });
    const redis = createRedis(deployment.target, 'worker', 'multihost');
    await waitForRedis(redis);
    const stores = createStores(redis, deployment.prefix, SECRET);
    const account = await stores.accounts.createAccount('multihost');
    const { apiKey } = await stores.accounts.createApiKey(account.id);

    const gateways = (['gw1', 'gw2'] as const).map((h) => onHost(h, process.execPath, [RUN_PROGRAM, 'services/gateway/src/main.ts'], { ...env, HOST: HOSTS[h], PORT: '8080' }));
    const workers = (['wk1', 'wk2'] as const).map((h) => onHost(h, process.execPath, [RUN_PROGRAM, 'services/scraper-worker/src/main.ts'], env));
    await Promise.all([...gateways.map((g) => g.waitFor(/listening on/, 120_000)), ...workers.map((w) => w.waitFor(/ready/, 120_000))]);
    const config = path.join(scratch, 'haproxy.cfg');
    writeFileSync(config, haproxyConfig(`${HOSTS.lb}:8080`, [`${HOSTS.gw1}:8080`, `${HOSTS.gw2}:8080`]).replace('timeout server 120s', 'timeout server 30s'));
    onHost('lb', 'haproxy', ['-f', config, '-db']);
    const balancer = `http://${HOSTS.lb}:8080`;
    for (let i = 0; !(await fetch(`${balancer}/readyz`).then((r) => r.ok, () => false)); i++) {
      if (i > 100) throw new Error('haproxy did not answer');
      await sleep(200);
    }
    console.log(`[${since()}] two gateways behind haproxy at ${balancer}, two scraper workers: ready`);

    const phases: Phase[] = [];
    const only = process.env.GLEANER_MULTIHOST_PHASES?.split(',');
    const run = async (name: string, faultAfterMs: number, fault: () => void, pageMs: (n: number) => number, restore: () => void) => {
      if (only && !only.some((word) => name.includes(word))) return;
      let faultAt = 0;
      const timer = setTimeout(() => {
        faultAt = Date.now();
        fault();
        console.log(`[${since()}] ${name}: fault`);
      }, faultAfterMs);
      const shots = await steadyLoad({ gateway: balancer, apiKey, page: (n) => `${pages!.url}/page/${pageMs(n)}/${name.replace(/\W+/g, '-')}-${n}`, intervalMs: 200, durationMs: 25_000, timeoutMs: 40_000 });
      clearTimeout(timer);
      restore();
      await settle(shots, balancer, apiKey, 90_000);
      phases.push({ name, faultAt, shots });
      console.log(`[${since()}] ${figuresLine(name, loadFigures(shots, faultAt))}`);
    };

    // 1. A worker's host loses its link while it runs jobs (pages of 4 s keep both workers busy).
    await run('worker host wk1 link down mid-job', 8_000, () => link('wk1', 'down'), () => 4_000, () => link('wk1', 'up'));
    // 2. A gateway's host goes down: haproxy takes it out on failed checks.
    await run('gateway host gw1 down', 8_000, () => link('gw1', 'down'), (n) => (n % 4 === 0 ? 7_000 : 300), () => link('gw1', 'up'));
    // 3. The Redis master's host goes down: the sentinels on the other two promote a replica.
    const oldMaster = currentMaster();
    const masterHost = (Object.entries(HOSTS).find(([, a]) => a === oldMaster)?.[0] ?? 'redis1') as Host;
    await run(`Redis master host ${masterHost} down`, 8_000, () => link(masterHost, 'down'), (n) => (n % 4 === 0 ? 7_000 : 300), () => link(masterHost, 'up'));
    console.log(`[${since()}] Redis master now ${currentMaster()} (was ${oldMaster})`);

    console.log('\nfigures (load average ' + os.loadavg().map((l) => l.toFixed(1)).join(' ') + ')');
    console.log('phase | sent | accepted | as 202 | completed | lost | refused | other | recovery');
    for (const p of phases) {
      const f = loadFigures(p.shots, p.faultAt);
      // For the worker fault: when the last request that was submitted before it ended.
      const pending = p.shots.filter((s) => s.sentAt < p.faultAt && (s.endedAt ?? 0) > p.faultAt);
      const drained = pending.length ? Math.max(...pending.map((s) => s.endedAt!)) - p.faultAt : 0;
      const recovery = p.name.startsWith('worker') ? `${(drained / 1000).toFixed(1)} s until the jobs caught by it ended (${pending.length} of them)` : `${(f.recoveryMs / 1000).toFixed(1)} s until submits were accepted again`;
      console.log(`${p.name} | ${f.sent} | ${f.accepted} | ${f.deferred} | ${f.completed} | ${f.lost} | ${f.refused} | ${f.other} | ${recovery}`);
      if (f.otherAnswers.length) console.log(`  other answers: ${[...new Set(f.otherAnswers)].join('; ')}`);
      if (f.lostAs.length) console.log(`  lost: ${f.lostAs.join('; ')}`);
      for (const lost of f.lostAs) {
        const id = lost.split(' ')[0];
        for (const [i, w] of workers.entries()) for (const line of w.output().split('\n').filter((l) => l.includes(id))) console.log(`  wk${i + 1}: ${line.slice(0, 400)}`);
      }
    }
    // Peak memory of each service process over the run (the chart's requests and limits).
    const peak = (p: ServiceProcess) => /VmHWM:\s+(\d+)/.exec(sh('cat', [`/proc/${p.child.pid}/status`], { allowFail: true }))?.[1];
    console.log(`peak RSS: gateways ${gateways.map((g) => `${Math.round(Number(peak(g)) / 1024)} MB`).join(', ')}; scraper workers ${workers.map((w) => `${Math.round(Number(peak(w)) / 1024)} MB`).join(', ')}`);
    redis.disconnect();
    const lost = phases.reduce((n, p) => n + loadFigures(p.shots, p.faultAt).lost, 0);
    console.log(`\n${lost === 0 ? 'PASS' : 'FAIL'}: ${lost} accepted requests lost`);
    process.exitCode = lost === 0 ? 0 : 1;
  } finally {
    await Promise.all(procs.map((p) => p.kill('SIGKILL')));
    await pages?.close();
    cleanUp();
    rmSync(scratch, { recursive: true, force: true });
  }
}

process.on('SIGINT', () => {
  for (const p of procs) p.kill('SIGKILL').catch(() => undefined);
  cleanUp();
  process.exit(130);
});

await main().catch((err) => {
  console.error(`multihost test failed: ${(err as Error).stack ?? err}`);
  process.exitCode = 1;
});
