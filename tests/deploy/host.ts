import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The machine side of the deploy test: commands, the Docker daemons it starts (one on the host,
 * one in each network namespace of the swarm), and putting back what they changed. Every name it
 * makes starts with `gl38-` and every address is in 10.238.0.0/16.
 */

export const WORK_DIR = '/tmp/gl38-deploy';
/** Docker 20.10 from Debian's docker.io (another `docker` may come first on PATH). */
export const DOCKER = existsSync('/usr/bin/docker') ? '/usr/bin/docker' : 'docker';

export interface RunOptions {
  env?: Record<string, string | undefined>;
  input?: string | Buffer;
  cwd?: string;
  /** Do not throw on a non-zero exit. */
  allowFailure?: boolean;
  timeoutMs?: number;
}

export interface RunResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end; throws with its output when it fails (unless allowFailure). */
export function run(command: string, args: string[], options: RunOptions = {}): RunResult {
  const result = spawnSync(command, args, {
    env: { ...process.env, ...options.env },
    input: options.input,
    cwd: options.cwd,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    timeout: options.timeoutMs ?? 15 * 60_000,
  });
  const out = { status: result.status, stdout: result.stdout ?? '', stderr: result.stderr ?? '' };
  if (result.error) throw new Error(`${command} ${args.join(' ')}: ${result.error.message}`);
  if (out.status !== 0 && !options.allowFailure) {
    throw new Error(`${command} ${args.join(' ')} exited ${out.status}:\n${(out.stderr || out.stdout).trim().split('\n').slice(-15).join('\n')}`);
  }
  return out;
}

/** The same, without blocking the event loop (the test's HTTP servers keep answering meanwhile). */
export function runAsync(command: string, args: string[], options: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: { ...process.env, ...options.env }, cwd: options.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 15 * 60_000);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      if (status !== 0 && !options.allowFailure) {
        reject(new Error(`${command} ${args.join(' ')} exited ${status}:\n${(stderr || stdout).trim().split('\n').slice(-15).join('\n')}`));
      } else resolve({ status, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function waitFor<T>(what: string, timeoutMs: number, probe: () => T | null | undefined | false | Promise<T | null | undefined | false>, everyMs = 500): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${what}`);
    await sleep(everyMs);
  }
}

// ---------------------------------------------------------------------------------------------
// Packages

/** Debian packages the test needs, installed with apt-get when a command is missing. */
const PACKAGES: Array<[command: string, pkg: string]> = [
  ['/usr/bin/docker', 'docker.io'],
  ['/usr/bin/docker-compose', 'docker-compose'],
  ['/usr/sbin/debootstrap', 'debootstrap'],
  ['/usr/sbin/iptables', 'iptables'],
  ['/usr/bin/nsenter', 'util-linux'],
  ['/usr/sbin/ip', 'iproute2'],
];

export function installPackages(log: (line: string) => void): void {
  const missing = PACKAGES.filter(([file]) => !existsSync(file)).map(([, pkg]) => pkg);
  if (!missing.length) return;
  log(`installing ${missing.join(', ')} with apt-get`);
  run('apt-get', ['update', '-qq']);
  run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing], { env: { DEBIAN_FRONTEND: 'noninteractive' } });
}

// ---------------------------------------------------------------------------------------------
// iptables: what a Docker daemon adds, taken back out (and nothing else)

type Tables = Record<string, { chains: Set<string>; rules: string[] }>;

/** The host's tables (a namespace's go away with it). */
function iptablesState(): Tables {
  const state: Tables = {};
  for (const table of ['filter', 'nat']) {
    const out = run('iptables-save', ['-t', table]).stdout;
    const chains = new Set<string>();
    const rules: string[] = [];
    for (const line of out.split('\n')) {
      if (line.startsWith(':')) chains.add(line.slice(1).split(' ')[0]);
      else if (line.startsWith('-A ')) rules.push(line);
    }
    state[table] = { chains, rules };
  }
  return state;
}

/** A rule or chain Docker makes: its chains, its bridges, its addresses (10.238/16 here). */
const DOCKER_MADE = /DOCKER|docker0|docker_gwbridge|\bbr-[0-9a-f]{12}\b|10\.238\./;

export class IptablesSnapshot {
  private readonly before = iptablesState();
  readonly forwardPolicy: string;
  private readonly ipForward = readFileSync('/proc/sys/net/ipv4/ip_forward', 'utf8').trim();

  constructor() {
    this.forwardPolicy = /^:FORWARD (\S+)/m.exec(run('iptables-save', ['-t', 'filter']).stdout)?.[1] ?? 'ACCEPT';
  }

  /**
   * Docker sets the FORWARD policy to DROP when it turns IP forwarding on itself, which would drop
   * every other bridge's traffic on this machine (other tests' namespace hosts): with forwarding
   * already on, it leaves the policy alone. Put back by restore().
   */
  enableForwarding(): void {
    if (this.ipForward !== '1') writeFileSync('/proc/sys/net/ipv4/ip_forward', '1');
  }

  /** Deletes the rules and chains added since the snapshot that Docker made; restores forwarding. */
  restore(): string[] {
    const removed: string[] = [];
    const now = iptablesState();
    for (const [table, { chains, rules }] of Object.entries(now)) {
      const before = this.before[table];
      const old = new Map<string, number>();
      for (const r of before.rules) old.set(r, (old.get(r) ?? 0) + 1);
      const added = rules.filter((r) => {
        const n = old.get(r) ?? 0;
        if (n > 0) {
          old.set(r, n - 1);
          return false;
        }
        return true;
      });
      const newChains = [...chains].filter((c) => !before.chains.has(c) && DOCKER_MADE.test(c));
      // Rules in built-in or older chains are deleted one by one; new chains are emptied and removed.
      for (const rule of added.filter((r) => DOCKER_MADE.test(r) && !newChains.includes(r.split(' ')[1]))) {
        run('sh', ['-c', `iptables -t ${table} ${rule.replace(/^-A /, '-D ')}`], { allowFailure: true });
        removed.push(`${table}: ${rule}`);
      }
      for (const chain of newChains) run('iptables', ['-t', table, '-F', chain], { allowFailure: true });
      for (const chain of newChains) {
        run('iptables', ['-t', table, '-X', chain], { allowFailure: true });
        removed.push(`${table}: chain ${chain}`);
      }
    }
    const policy = /^:FORWARD (\S+)/m.exec(run('iptables-save', ['-t', 'filter']).stdout)?.[1];
    if (policy && policy !== this.forwardPolicy) run('iptables', ['-P', 'FORWARD', this.forwardPolicy]);
    writeFileSync('/proc/sys/net/ipv4/ip_forward', this.ipForward);
    return removed;
  }
}

// ---------------------------------------------------------------------------------------------
// Docker daemons

export interface DaemonOptions {
  name: string;
  /** Network namespace to run in (`nsenter --net`); the host's when absent. */
  netns?: string;
  /** docker0's address and the pool of user networks, inside 10.238.0.0/16. */
  bip: string;
  addressPool: string;
  extraArgs?: string[];
  /** Kept between runs (an image cache) or deleted when the daemon stops. */
  keepData: boolean;
}

export class DockerDaemon {
  readonly socket: string;
  readonly host: string;
  readonly dataRoot: string;
  private readonly runDir: string;
  private child: ChildProcess | null = null;

  constructor(readonly options: DaemonOptions) {
    this.runDir = `/run/${options.name}`;
    this.socket = `${this.runDir}/docker.sock`;
    this.host = `unix://${this.socket}`;
    this.dataRoot = `/var/lib/${options.name}`;
  }

  get env(): Record<string, string> {
    return { DOCKER_HOST: this.host };
  }

  /** `docker …` against this daemon. */
  docker(args: string[], options: RunOptions = {}): RunResult {
    return run(DOCKER, args, { ...options, env: { ...this.env, ...options.env } });
  }

  dockerAsync(args: string[], options: RunOptions = {}): Promise<RunResult> {
    return runAsync(DOCKER, args, { ...options, env: { ...this.env, ...options.env } });
  }

  get pidfile(): string {
    return `${this.runDir}/docker.pid`;
  }

  /** A daemon of ours left running by an interrupted run (its pidfile names a live dockerd). */
  private leftoverPid(): number | null {
    if (!existsSync(this.pidfile)) return null;
    const pid = Number(readFileSync(this.pidfile, 'utf8').trim());
    return pid && processName(pid) === 'dockerd' ? pid : null;
  }

  async start(): Promise<void> {
    const left = this.leftoverPid();
    if (left) await stopProcess(left, 30_000);
    mkdirSync(this.runDir, { recursive: true });
    mkdirSync(this.dataRoot, { recursive: true });
    mkdirSync(WORK_DIR, { recursive: true });
    const args = [
      '-H', this.host,
      '--data-root', this.dataRoot,
      '--exec-root', `${this.runDir}/exec`,
      '--pidfile', this.pidfile,
      '--bip', this.options.bip,
      '--default-address-pool', `base=${this.options.addressPool},size=24`,
      ...(this.options.extraArgs ?? []),
    ];
    const [command, argv] = this.options.netns ? ['nsenter', [`--net=/run/netns/${this.options.netns}`, 'dockerd', ...args]] : ['dockerd', args];
    const log = openSync(path.join(WORK_DIR, `${this.options.name}.log`), 'a');
    this.child = spawn(command, argv, { stdio: ['ignore', log, log], detached: true });
    this.child.unref();
    await waitFor(`${this.options.name} to answer`, 60_000, () => this.docker(['version', '--format', '{{.Server.Version}}'], { allowFailure: true }).status === 0);
  }

  /** Stops the daemon (its containers stop with it) and removes what it leaves behind. */
  async stop(): Promise<void> {
    const pid = this.child?.pid ?? this.leftoverPid();
    if (pid && processName(pid) === 'dockerd') await stopProcess(pid, 60_000);
    this.child = null;
    // Mounts a daemon killed hard can leave (overlay layers, network namespaces of containers).
    for (const mount of mountsUnder([this.runDir, this.dataRoot])) run('umount', ['-l', mount], { allowFailure: true });
    rmSync(this.runDir, { recursive: true, force: true });
    if (!this.options.keepData) rmSync(this.dataRoot, { recursive: true, force: true });
    // docker0 outlives the daemon in the host's namespace.
    if (!this.options.netns) run('ip', ['link', 'del', 'docker0'], { allowFailure: true });
  }
}

export function processName(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return null;
  }
}

/** Pids of processes named `name` (for refusing to start beside another Docker daemon). */
export function processesNamed(name: string): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((pid) => processName(pid) === name);
}

/** The network namespace a process runs in, as the inode of its /proc/<pid>/ns/net link. */
export function netnsOf(pid: number | 'self'): string | null {
  try {
    return run('readlink', [`/proc/${pid}/ns/net`]).stdout.trim();
  } catch {
    return null;
  }
}

async function stopProcess(pid: number, graceMs: number): Promise<void> {
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && processName(pid) !== null) await sleep(200);
  if (processName(pid) !== null) {
    process.kill(pid, 'SIGKILL');
    while (processName(pid) !== null) await sleep(100);
  }
}

function mountsUnder(roots: string[]): string[] {
  return readFileSync('/proc/mounts', 'utf8')
    .split('\n')
    .map((l) => l.split(' ')[1])
    .filter((m) => m && roots.some((r) => m === r || m.startsWith(`${r}/`)))
    .sort((a, b) => b.length - a.length);
}

// ---------------------------------------------------------------------------------------------
// Network namespaces as machines

export interface Node {
  name: string;
  netns: string;
  /** The host side of its link (taken down to cut the node off). */
  hostLink: string;
  address: string;
}

export const SWARM_BRIDGE = 'gl38-br';
export const SWARM_HOST_ADDRESS = '10.238.0.1';

/**
 * Machines as network namespaces on one bridge: the host has 10.238.0.1 on it (the test's own
 * servers listen there), each node 10.238.0.1N. No default route anywhere: nothing leaves.
 */
export function createNodes(count: number): Node[] {
  run('ip', ['link', 'add', SWARM_BRIDGE, 'type', 'bridge']);
  run('ip', ['addr', 'add', `${SWARM_HOST_ADDRESS}/24`, 'dev', SWARM_BRIDGE]);
  run('ip', ['link', 'set', SWARM_BRIDGE, 'up']);
  const nodes: Node[] = [];
  for (let i = 1; i <= count; i++) {
    const node: Node = { name: `gl38-n${i}`, netns: `gl38-n${i}`, hostLink: `gl38-n${i}h`, address: `10.238.0.${10 + i}` };
    run('ip', ['netns', 'add', node.netns]);
    run('ip', ['link', 'add', node.hostLink, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', node.netns]);
    run('ip', ['link', 'set', node.hostLink, 'master', SWARM_BRIDGE, 'up']);
    run('ip', ['-n', node.netns, 'addr', 'add', `${node.address}/24`, 'dev', 'eth0']);
    run('ip', ['-n', node.netns, 'link', 'set', 'eth0', 'up']);
    run('ip', ['-n', node.netns, 'link', 'set', 'lo', 'up']);
    nodes.push(node);
  }
  return nodes;
}

/** Removes the namespaces, links and bridge createNodes makes (also those of an interrupted run). */
export function removeNodes(): void {
  for (const netns of run('ip', ['netns', 'list'], { allowFailure: true }).stdout.split('\n').map((l) => l.split(' ')[0])) {
    if (netns.startsWith('gl38-')) run('ip', ['netns', 'del', netns], { allowFailure: true });
  }
  for (const link of run('ip', ['-o', 'link', 'show'], { allowFailure: true }).stdout.split('\n').map((l) => l.split(': ')[1]?.split('@')[0])) {
    if (link?.startsWith('gl38-')) run('ip', ['link', 'del', link], { allowFailure: true });
  }
}

export function loadAverage(): string {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}
