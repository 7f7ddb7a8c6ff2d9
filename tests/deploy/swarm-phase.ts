import path from 'node:path';
import { REPO_ROOT } from '../support/processes.js';
import { createNodes, DockerDaemon, removeNodes, run, sleep, SWARM_HOST_ADDRESS, waitFor, WORK_DIR, type Node } from './host.js';
import { describeTotals, GatewayClient, range, stalledJobs, totals } from './load.js';
import { seconds, type Report } from './report.js';
import { TargetSite } from './target-site.js';

/**
 * infra/docker-stack.yml on a two-node Docker Swarm, each node a network namespace with its own
 * Docker daemon (started with nsenter --net, so it shares the host's files and mounts): the
 * image loaded into each (no registry), Redis on one node, the gateway on the other, workers on
 * both; then the gateway's node is cut off (its link taken down) in the middle of a load, and the
 * jobs its workers held must be taken over by the other node's workers.
 */

const STACK = 'gleaner';
/** WORKER_LOCK_DURATION_MS + WORKER_STALLED_INTERVAL_MS (defaults): a held job runs again within this. */
const TAKEOVER_BOUND_MS = 30_000 + 15_000;
/** How long each page of the load takes to answer. */
const PAGE_MS = 8_000;

export class SwarmDeployment {
  private readonly nodes: Node[] = [];
  private readonly daemons: DockerDaemon[] = [];
  private site: TargetSite | null = null;

  constructor(
    private readonly report: Report,
    private readonly imagesTar: string,
    private readonly redisImage: string,
  ) {}

  /** The node that runs the gateway (and is cut off), and the manager that runs Redis. */
  private get gatewayNode() {
    return { node: this.nodes[0], daemon: this.daemons[0] };
  }

  private get redisNode() {
    return { node: this.nodes[1], daemon: this.daemons[1] };
  }

  async start(): Promise<void> {
    removeNodes();
    this.nodes.push(...createNodes(2));
    this.nodes.forEach((node, i) => {
      this.daemons.push(
        new DockerDaemon({
          name: node.name,
          netns: node.netns,
          bip: `10.238.${1 + i}.1/24`,
          addressPool: `10.238.${64 + 16 * i}.0/20`,
          // Swarm services have no security_opt: the daemon gives every container no-new-privileges.
          extraArgs: ['--no-new-privileges'],
          keepData: false,
        }),
      );
    });
    await Promise.all(this.daemons.map((d) => d.start()));
    this.report.step(`two Docker daemons in network namespaces ${this.nodes.map((n) => `${n.netns} (${n.address})`).join(', ')}`);
    const started = Date.now();
    await Promise.all(this.daemons.map((d) => d.dockerAsync(['load', '-q', '-i', this.imagesTar])));
    this.report.figure('swarm: images loaded into both nodes (docker save | docker load)', seconds(Date.now() - started));

    const manager = this.redisNode;
    manager.daemon.docker(['swarm', 'init', '--advertise-addr', manager.node.address, '--listen-addr', `${manager.node.address}:2377`, '--default-addr-pool', '10.238.128.0/17', '--default-addr-pool-mask-length', '24']);
    const token = manager.daemon.docker(['swarm', 'join-token', '-q', 'worker']).stdout.trim();
    this.gatewayNode.daemon.docker(['swarm', 'join', '--token', token, '--advertise-addr', this.gatewayNode.node.address, `${manager.node.address}:2377`]);
    const id = (d: DockerDaemon) => d.docker(['info', '--format', '{{.Swarm.NodeID}}']).stdout.trim();
    manager.daemon.docker(['node', 'update', '--label-add', 'gleaner.gateway=true', id(this.gatewayNode.daemon)]);
    manager.daemon.docker(['node', 'update', '--label-add', 'gleaner.redis=true', id(manager.daemon)]);
    manager.daemon.docker(['secret', 'create', 'gleaner_secret', '-'], { input: 'gl38-swarm-secret-0123456789abcdef0123' });
    this.report.step(`swarm: ${manager.node.name} manager (label gleaner.redis), ${this.gatewayNode.node.name} worker (label gleaner.gateway); secret gleaner_secret`);

    this.site = await TargetSite.start(SWARM_HOST_ADDRESS);
    const deployed = Date.now();
    const deploy = manager.daemon.docker(['stack', 'deploy', '-c', path.join(REPO_ROOT, 'infra/docker-stack.yml'), STACK], {
      env: { REDIS_IMAGE: this.redisImage, GLEANER_ALLOW_PRIVATE_NETWORKS: 'true' },
    });
    this.report.check(!/Ignoring unsupported options/i.test(deploy.stderr + deploy.stdout), `docker stack deploy -c infra/docker-stack.yml applies every option${/Ignoring/.test(deploy.stderr) ? `: ${deploy.stderr.trim()}` : ''}`);
    await this.waitHealthy();
    this.report.figure('swarm: time to healthy (stack deploy to every task healthy)', seconds(Date.now() - deployed));
    this.checkPlacement();
    this.checkSecret();
  }

  /** GLEANER_SECRET reaches the services as a file readable by their user only, never in their environment. */
  private checkSecret(): void {
    const { daemon } = this.gatewayNode;
    const container = daemon.docker(['ps', '-q', '--filter', `label=com.docker.swarm.service.name=${STACK}_gateway`]).stdout.trim().split('\n')[0];
    const file = daemon.docker(['exec', container, 'stat', '-c', '%a %U', '/run/secrets/gleaner_secret']).stdout.trim();
    const env = daemon.docker(['inspect', '--format', '{{json .Config.Env}}', container]).stdout;
    this.report.check(file === '400 node' && !env.includes('GLEANER_SECRET=') && env.includes('GLEANER_SECRET_FILE=/run/secrets/gleaner_secret'), 'the swarm secret is a file only the service user reads (mode 400), not in the environment', { file });
  }

  /** Every service at its replica count, every container of the stack healthy, on both nodes. */
  private async waitHealthy(): Promise<void> {
    const manager = this.redisNode.daemon;
    await waitFor('every swarm task to be healthy', 300_000, () => {
      const services = manager.docker(['service', 'ls', '--format', '{{.Replicas}}']).stdout.trim().split('\n');
      if (!services.every((r) => /^(\d+)\/\1\b/.test(r))) return false;
      return this.daemons.every((d) => {
        const states = d.docker(['ps', '--filter', `label=com.docker.stack.namespace=${STACK}`, '--format', '{{.Status}}']).stdout.trim().split('\n').filter(Boolean);
        return states.every((s) => /\(healthy\)/.test(s));
      });
    }, 2000);
  }

  private servicesOn(daemon: DockerDaemon): string[] {
    return daemon
      .docker(['ps', '--filter', `label=com.docker.stack.namespace=${STACK}`, '--format', '{{.Label "com.docker.swarm.service.name"}}'])
      .stdout.split('\n')
      .filter(Boolean)
      .map((s) => s.replace(`${STACK}_`, ''))
      .sort();
  }

  private checkPlacement(): void {
    const onGateway = this.servicesOn(this.gatewayNode.daemon);
    const onRedis = this.servicesOn(this.redisNode.daemon);
    this.report.step(`swarm placement: ${this.gatewayNode.node.name}: ${onGateway.join(', ')}`);
    this.report.step(`swarm placement: ${this.redisNode.node.name}: ${onRedis.join(', ')}`);
    this.report.check(
      onGateway.includes('gateway') && !onRedis.includes('gateway') && onRedis.includes('redis') && !onGateway.includes('redis') && onGateway.includes('scraper-worker') && onRedis.includes('scraper-worker'),
      'gateway on one node, Redis on the other, scraper-workers on both',
    );
    const mode = this.redisNode.daemon.docker(['service', 'inspect', `${STACK}_scraper-worker`, '--format', '{{.Spec.EndpointSpec.Mode}}']).stdout.trim();
    this.report.check(mode === 'dnsrr', 'services use endpoint_mode dnsrr');
  }

  private cli(args: string[]): string {
    const { daemon } = this.gatewayNode;
    const container = daemon.docker(['ps', '-q', '--filter', `label=com.docker.swarm.service.name=${STACK}_gateway`]).stdout.trim().split('\n')[0];
    return daemon.docker(['exec', container, 'node', 'packages/platform/src/run.mjs', 'scripts/gleaner-cli.ts', ...args]).stdout;
  }

  /** Cuts the gateway's node off mid-load: the jobs its workers held run again on the other node. */
  async nodeDown(): Promise<void> {
    const site = this.site!;
    const client = new GatewayClient(`http://${this.gatewayNode.node.address}:8080`);
    const keys: string[] = [];
    for (let i = 1; i <= 8; i++) {
      this.cli(['accounts', 'create', `swarm-${i}`]);
      this.cli(['accounts', 'set-rate-limit', `swarm-${i}`, '100000']);
      keys.push(this.cli(['keys', 'create', '--account', `swarm-${i}`]).trim().split('\n').at(-1)!.trim());
    }
    const first = await client.scrape(keys[0], site.page('swarm-first'), { pollUntil: Date.now() + 60_000 });
    this.report.check(first.end === 'completed', 'a scrape through the swarm: gateway on one node, Redis on the other, over the overlay network');

    // Pages of 8 s, two per account (a quarter of the per-account cap): every job starts at once.
    const ids = Array.from({ length: 16 }, (_, i) => `swarm-${i}`);
    const url = (id: string) => site.page(id, PAGE_MS);
    const running = Promise.all(ids.map((id, i) => client.scrape(keys[i % keys.length], url(id), { retryUntil: Date.now() + 400_000, pollUntil: Date.now() + 460_000 })));
    await waitFor('every page to be requested', 60_000, () => ids.every((id) => site.hitsOf(id).length > 0), 100);
    const cut = this.gatewayNode.node;
    const other = this.redisNode;
    const held = ids.filter((id) => site.hitsOf(id)[0].from === cut.address);
    this.report.step(`jobs running: ${held.length} on ${cut.name}, ${ids.length - held.length} on ${other.node.name}; taking ${cut.name}'s link down`);
    if (!held.length) throw new Error(`no job ran on ${cut.name}: nothing to take over`);
    const downAt = Date.now();
    run('ip', ['link', 'set', cut.hostLink, 'down']);
    let rerun: number[] = [];
    try {
      // Found stalled once their lock lapses, then run again alone, one at a time per worker
      // (crash isolation): the link stays down until the last of them has answered.
      rerun = await waitFor(`${other.node.name} to run ${held.length} jobs again`, TAKEOVER_BOUND_MS + held.length * (PAGE_MS + 5_000), () => {
        const again = held.map((id) => site.hitsOf(id).find((h) => h.from === other.node.address && h.at > downAt));
        return again.every(Boolean) ? again.map((h) => h!.at - downAt) : null;
      }, 250);
      await sleep(PAGE_MS + 3_000);
    } finally {
      run('ip', ['link', 'set', cut.hostLink, 'up']);
    }
    this.report.step(`link of ${cut.name} up again after ${seconds(Date.now() - downAt)}; clients retry with their Idempotency-Key`);
    const outcomes = await running;
    const heldRequests = new Set(held.map((id) => outcomes.find((o) => o.url === url(id))?.requestId));
    const logs = other.daemon
      .docker(['ps', '-aq', '--filter', `label=com.docker.swarm.service.name=${STACK}_scraper-worker`])
      .stdout.split('\n')
      .filter(Boolean)
      .map((c) => other.daemon.docker(['logs', c], { allowFailure: true }).stdout)
      .join('\n');
    const found = stalledJobs(logs, downAt).filter((s) => heldRequests.has(s.jobId)).map((s) => s.at - downAt);
    const t = totals(outcomes);
    this.report.figure(
      `swarm: ${cut.name} cut off under load`,
      `${describeTotals(t)}; its ${held.length} jobs found stalled on ${other.node.name} ${range(found)} after the cut (lock 30 s + stall check every 15 s), run again ${range(rerun)} after`,
    );
    this.report.check(t.completed === ids.length && t.lost === 0, 'nothing accepted is lost', outcomes.filter((o) => o.end !== 'completed'));
    this.report.check(found.length === held.length && Math.max(...found) <= TAKEOVER_BOUND_MS, "the cut-off node's jobs were taken over within the lock duration plus the stall interval", found);
  }

  async stop(): Promise<void> {
    const started = Date.now();
    const manager = this.daemons[1];
    if (manager) {
      manager.docker(['stack', 'rm', STACK], { allowFailure: true });
      // Tasks stop as their services go (SIGTERM, then up to stop_grace_period).
      await waitFor('the stack\'s containers to stop', 60_000, () => this.daemons.every((d) => !d.docker(['ps', '-q'], { allowFailure: true }).stdout.trim()), 1000).catch(() => undefined);
    }
    await this.site?.close();
    for (const d of this.daemons) d.docker(['swarm', 'leave', '--force'], { allowFailure: true, timeoutMs: 30_000 });
    await Promise.all(this.daemons.map((d) => d.stop()));
    removeNodes();
    this.report.step(`swarm removed (stack, both daemons and their data, namespaces, links, bridge) in ${seconds(Date.now() - started)}`);
  }
}

export const imagesTar = () => path.join(WORK_DIR, 'images.tar');
