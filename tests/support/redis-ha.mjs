// Redis that survives a failure, started by tests: a Cluster (3 masters, 3 replicas) or a Sentinel
// group (a master, replicas, 3 sentinels) on free loopback ports. Plain JavaScript, like
// suite-redis.mjs: jest's globalSetup loads it with Node's own loader (GLEANER_TEST_REDIS_MODE).
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { answersPing, freePort } from './suite-redis.mjs';

const run = promisify(execFile);
const sleep = (/** @type {number} */ ms) => new Promise((r) => setTimeout(r, ms));

/** @param {number} port @param {string[]} args */
async function cli(port, ...args) {
  const { stdout } = await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], { timeout: 10_000 });
  return stdout;
}

/**
 * One redis-server (or sentinel) under a shell that stops it when the shell's stdin closes, so
 * that no server outlives the test process however it ends. `kill()` ends the server itself
 * (SIGKILL: a crash, a host gone), `start()` starts it again on the same port and directory.
 */
class RedisProcess {
  /** @param {number} port @param {string} dir @param {string[]} args */
  constructor(port, dir, args) {
    this.port = port;
    this.dir = dir;
    this.args = args;
    /** @type {import('node:child_process').ChildProcess | null} */
    this.shell = null;
    /** @type {number | null} */
    this.pid = null;
  }

  async start() {
    await this.stop();
    mkdirSync(this.dir, { recursive: true });
    const stopsWithStdin = 'redis-server "$@" & pid=$!; echo $pid; read -r _; kill -9 $pid 2>/dev/null; wait $pid';
    const shell = spawn('sh', ['-c', stopsWithStdin, 'redis-ha', ...this.args], { stdio: ['pipe', 'pipe', 'ignore'], cwd: this.dir });
    this.shell = shell;
    this.pid = await new Promise((resolve) => shell.stdout?.once('data', (d) => resolve(Number(String(d).trim()))));
    // Neither the shell nor its pipes keep the test process alive once the server runs.
    shell.unref();
    /** @type {any} */ (shell.stdin).unref?.();
    /** @type {any} */ (shell.stdout).unref?.();
    for (let i = 0; i < 200; i++) {
      if (await answersPing(this.port)) return;
      await sleep(50);
    }
    throw new Error(`redis-server on ${this.port} did not start`);
  }

  /** The server dies at once (SIGKILL), as in a crash; its shell stays until stop(). */
  kill() {
    if (this.pid) {
      try {
        process.kill(this.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    this.pid = null;
  }

  async stop() {
    const shell = this.shell;
    this.shell = null;
    this.pid = null;
    if (!shell || shell.exitCode !== null) return;
    shell.ref();
    const exited = new Promise((resolve) => shell.once('exit', resolve));
    shell.stdin?.end();
    await exited;
  }
}

/** @param {number} port @param {string} dir @param {string[]} extra */
function serverArgs(port, dir, extra) {
  return ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--logfile', path.join(dir, 'redis.log'), ...extra];
}

/**
 * A Redis Cluster of 3 masters and 3 replicas, made with `redis-cli --cluster create`.
 * `nodeTimeoutMs` is cluster-node-timeout: a master that stops answering is failed over about
 * that long after, plus the replicas' election.
 * @param {{ nodeTimeoutMs?: number }} [options]
 */
export async function startRedisCluster(options = {}) {
  const root = mkdtempSync(path.join(os.tmpdir(), 'gleaner-test-cluster-'));
  const nodes = [];
  try {
    for (let i = 0; i < 6; i++) {
      const port = await freePort();
      const dir = path.join(root, String(port));
      nodes.push(new RedisProcess(port, dir, serverArgs(port, dir, ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', String(options.nodeTimeoutMs ?? 2_000)])));
    }
    await Promise.all(nodes.map((n) => n.start()));
    await run('redis-cli', ['--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`), '--cluster-replicas', '1', '--cluster-yes'], { timeout: 60_000 });
    // Every node must know every slot, and every replica must be in sync, before tests write:
    // three replicas with their link up, and each master counting its replica (a node can still be
    // a master without slots for a moment after the create, and a master counts its replica only
    // once the sync is done; a WAIT before that is acknowledged by none).
    for (let i = 0; ; i++) {
      const infos = await Promise.all(nodes.map((n) => cli(n.port, 'cluster', 'info')));
      const replication = await Promise.all(nodes.map((n) => cli(n.port, 'info', 'replication')));
      const replicasSynced =
        replication.filter((r) => /role:slave/.test(r) && /master_link_status:up/.test(r)).length === 3 &&
        replication.filter((r) => /role:master/.test(r) && /connected_slaves:1\b/.test(r) && /slave0:.*state=online/.test(r)).length === 3;
      if (infos.every((info) => /cluster_state:ok/.test(info) && /cluster_slots_ok:16384/.test(info)) && replicasSynced) break;
      if (i > 300) throw new Error('the test Redis Cluster did not come up');
      await sleep(100);
    }
  } catch (err) {
    await Promise.all(nodes.map((n) => n.stop()));
    rmSync(root, { recursive: true, force: true });
    throw err;
  }
  return {
    nodes,
    nodesSetting: nodes.map((n) => `127.0.0.1:${n.port}`).join(','),
    /** The node serving the slot of `key` now (a hash tag decides it: `{t-x}:…`). */
    async masterOf(/** @type {string} */ key) {
      const slot = Number((await cli(nodes.find((n) => n.pid)?.port ?? nodes[0].port, 'cluster', 'keyslot', key)).trim());
      for (const node of nodes.filter((n) => n.pid)) {
        const info = await cli(node.port, 'cluster', 'nodes').catch(() => '');
        for (const line of info.split('\n')) {
          const fields = line.split(' ');
          if (!fields[2]?.includes('master') || fields[2].includes('fail')) continue;
          const port = Number(fields[1].split(':')[1].split('@')[0]);
          for (const range of fields.slice(8)) {
            const [from, to = from] = range.split('-').map(Number);
            if (slot >= from && slot <= to) return nodes.find((n) => n.port === port);
          }
        }
      }
      throw new Error(`no master serves slot ${slot}`);
    },
    async stop() {
      await Promise.all(nodes.map((n) => n.stop()));
      rmSync(root, { recursive: true, force: true });
    },
  };
}

export const TEST_SENTINEL_MASTER = 'gleaner-test';

/**
 * A master, `replicas` replicas and 3 sentinels (quorum 2) watching them. `downAfterMs` is the
 * sentinels' down-after-milliseconds: a master silent that long is failed over.
 * @param {{ replicas?: number, downAfterMs?: number }} [options]
 */
export async function startSentinelGroup(options = {}) {
  const root = mkdtempSync(path.join(os.tmpdir(), 'gleaner-test-sentinel-'));
  const servers = [];
  const sentinels = [];
  try {
    const masterPort = await freePort();
    for (let i = 0; i <= (options.replicas ?? 1); i++) {
      const port = i === 0 ? masterPort : await freePort();
      const dir = path.join(root, `server-${port}`);
      servers.push(new RedisProcess(port, dir, serverArgs(port, dir, i === 0 ? [] : ['--replicaof', '127.0.0.1', String(masterPort)])));
    }
    await Promise.all(servers.map((s) => s.start()));
    for (let i = 0; i < 3; i++) {
      const port = await freePort();
      const dir = path.join(root, `sentinel-${port}`);
      mkdirSync(dir, { recursive: true });
      const conf = path.join(dir, 'sentinel.conf');
      writeFileSync(
        conf,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          `dir ${dir}`,
          `sentinel monitor ${TEST_SENTINEL_MASTER} 127.0.0.1 ${masterPort} 2`,
          `sentinel down-after-milliseconds ${TEST_SENTINEL_MASTER} ${options.downAfterMs ?? 1_000}`,
          `sentinel failover-timeout ${TEST_SENTINEL_MASTER} 10000`,
          `sentinel parallel-syncs ${TEST_SENTINEL_MASTER} 1`,
          '',
        ].join('\n'),
      );
      sentinels.push(new RedisProcess(port, dir, [conf, '--sentinel', '--logfile', path.join(dir, 'sentinel.log')]));
    }
    await Promise.all(sentinels.map((s) => s.start()));
    // The sentinels must have found the replicas and each other before a failover can happen.
    for (let i = 0; ; i++) {
      const views = await Promise.all(sentinels.map((s) => cli(s.port, 'sentinel', 'master', TEST_SENTINEL_MASTER).catch(() => '')));
      const known = views.every((v) => {
        const lines = v.split('\n');
        const field = (name) => Number(lines[lines.indexOf(name) + 1]);
        return field('num-slaves') === servers.length - 1 && field('num-other-sentinels') === 2;
      });
      const synced = (await Promise.all(servers.slice(1).map((s) => cli(s.port, 'info', 'replication')))).every((r) => /master_link_status:up/.test(r));
      if (known && synced) break;
      if (i > 300) throw new Error('the test Sentinel group did not come up');
      await sleep(100);
    }
  } catch (err) {
    await Promise.all([...servers, ...sentinels].map((s) => s.stop()));
    rmSync(root, { recursive: true, force: true });
    throw err;
  }
  return {
    servers,
    sentinels,
    masterName: TEST_SENTINEL_MASTER,
    sentinelsSetting: sentinels.map((s) => `127.0.0.1:${s.port}`).join(','),
    /** The server the sentinels name as master now. */
    async master() {
      for (const s of sentinels) {
        const answer = await cli(s.port, 'sentinel', 'get-master-addr-by-name', TEST_SENTINEL_MASTER).catch(() => '');
        const port = Number(answer.split('\n')[1]);
        if (port) return servers.find((server) => server.port === port);
      }
      throw new Error('no sentinel names a master');
    },
    async stop() {
      await Promise.all([...servers, ...sentinels].map((s) => s.stop()));
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/**
 * The suite's Redis in the mode GLEANER_TEST_REDIS_MODE names (`cluster` or `sentinel`; see
 * suite-redis.mjs): the variables a test and the services it starts read, and a stop.
 * @param {'cluster' | 'sentinel'} mode
 * @returns {Promise<{ env: Record<string, string>, stop: () => Promise<void> }>}
 */
export async function startSuiteRedisHa(mode) {
  if (mode === 'cluster') {
    // Production's node timeout: a loaded machine's slow heartbeat must not fail a master over mid-suite.
    const cluster = await startRedisCluster({ nodeTimeoutMs: 15_000 });
    return { env: { GLEANER_TEST_REDIS_CLUSTER_NODES: cluster.nodesSetting, GLEANER_TEST_REDIS_URL: `redis://127.0.0.1:${cluster.nodes[0].port}/0` }, stop: () => cluster.stop() };
  }
  const group = await startSentinelGroup({ downAfterMs: 10_000 });
  const master = await group.master();
  return {
    env: { GLEANER_TEST_REDIS_SENTINELS: group.sentinelsSetting, GLEANER_TEST_REDIS_SENTINEL_MASTER: group.masterName, GLEANER_TEST_REDIS_URL: `redis://127.0.0.1:${master?.port}/0` },
    stop: () => group.stop(),
  };
}
