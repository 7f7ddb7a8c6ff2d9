/**
 * pnpm test:deploy — the operator's story run for real, as root on a Debian 12 machine (not part
 * of `pnpm test`: it needs root, Docker and several minutes; run it by hand):
 *   1. installs what it needs (apt-get: docker.io, docker-compose, debootstrap, iptables);
 *   2. starts its own Docker daemon (socket /run/gl38-docker/docker.sock, data in
 *      /var/lib/gl38-docker, addresses in 10.238.0.0/16) and makes the base images with
 *      infra/local-base-image.sh unless NODE_IMAGE and REDIS_IMAGE name images to use;
 *   3. docker-compose.yml: build, up, all healthy, the README's tour, 60 pages of 2 s at 1 and 3
 *      scraper-worker replicas, then faults under load (a worker killed mid-job, the gateway and
 *      Redis restarted, a rolling restart of the workers), each with its requests accepted,
 *      completed and lost, and each service's peak memory;
 *   4. infra/docker-stack.yml on a two-node Docker Swarm in network namespaces (gl38-n1,
 *      gl38-n2), one node cut off mid-load;
 *   5. removes what it made: containers, networks, volumes, namespaces, links, the iptables rules
 *      and chains its daemons added, the daemons themselves. It keeps the image cache in
 *      /var/lib/gl38-docker (the base images and the build's layers; delete the folder to
 *      start from nothing).
 * Extra CA certificates for the build's downloads: EXTRA_CA_CERTS, else the machine's own
 * (/usr/local/share/ca-certificates/*.crt). DEPLOY_TEST_PHASES=compose or swarm runs one part;
 * DEPLOY_TEST_CACHED_BUILD=1 builds with the build cache (the build time printed is then not a full build).
 */
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../support/processes.js';
import { ComposeDeployment, type ImageSources } from './compose-phase.js';
import { DockerDaemon, installPackages, IptablesSnapshot, loadAverage, processesNamed, removeNodes, run, runAsync, WORK_DIR } from './host.js';
import { Report, seconds } from './report.js';
import { imagesTar, SwarmDeployment } from './swarm-phase.js';

const report = new Report();
const phases = new Set((process.env.DEPLOY_TEST_PHASES ?? 'compose,swarm').split(','));
const cleanups: Array<() => Promise<void> | void> = [];

/** docker0's address on the host daemon: the compose containers reach the test's servers there. */
const HOST_BRIDGE_ADDRESS = '10.238.16.1';

function extraCaCertificates(): string {
  if (process.env.EXTRA_CA_CERTS !== undefined) return process.env.EXTRA_CA_CERTS;
  const dir = '/usr/local/share/ca-certificates';
  if (!existsSync(dir)) return '';
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.crt'));
  return files.map((f) => readFileSync(path.join(dir, f), 'utf8').trim()).join('\n');
}

async function baseImages(daemon: DockerDaemon): Promise<ImageSources> {
  if (process.env.NODE_IMAGE && process.env.REDIS_IMAGE) return { NODE_IMAGE: process.env.NODE_IMAGE, REDIS_IMAGE: process.env.REDIS_IMAGE };
  const started = Date.now();
  const out = await runAsync('sh', [path.join(REPO_ROOT, 'infra/local-base-image.sh')], { env: { ...daemon.env, DOCKER: '/usr/bin/docker' } });
  const made = out.stderr.split('\n').filter((l) => l.startsWith('made '));
  report.figure('base images (infra/local-base-image.sh)', made.length ? `${made.map((l) => l.slice(5)).join(', ')} made in ${seconds(Date.now() - started)}` : 'cached');
  const vars = Object.fromEntries(out.stdout.trim().split('\n').map((l) => l.split('=') as [string, string]));
  return { NODE_IMAGE: vars.NODE_IMAGE, REDIS_IMAGE: vars.REDIS_IMAGE };
}

let cleaning: Promise<void> | null = null;

/** Undoes what was made, last first; once, whoever asks (the end of the run or a signal). */
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    while (cleanups.length) {
      try {
        await cleanups.pop()!();
      } catch (err) {
        console.error(`cleanup: ${(err as Error).message}`);
      }
    }
  })();
  return cleaning;
}

async function main(): Promise<void> {
  if (process.getuid?.() !== 0) throw new Error('pnpm test:deploy runs as root: it installs packages, starts Docker daemons and makes network namespaces');
  report.step(`load average ${loadAverage()}, ${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GB`);
  installPackages((line) => report.step(line));
  const others = processesNamed('dockerd');
  if (others.length) throw new Error(`a Docker daemon already runs here (pid ${others.join(', ')}): this test starts its own and its iptables rules would meet that one's; stop it first`);
  removeNodes();
  rmSync(WORK_DIR, { recursive: true, force: true });

  const iptables = new IptablesSnapshot();
  iptables.enableForwarding();
  cleanups.push(() => {
    const removed = iptables.restore();
    report.step(`iptables: removed ${removed.length} rules and chains the Docker daemons added; IP forwarding and the FORWARD policy (${iptables.forwardPolicy}) as they were`);
  });

  const host = new DockerDaemon({ name: 'gl38-docker', bip: `${HOST_BRIDGE_ADDRESS}/24`, addressPool: '10.238.32.0/19', keepData: true });
  cleanups.push(() => host.stop());
  await host.start();
  report.step(`Docker ${host.docker(['version', '--format', '{{.Server.Version}}']).stdout.trim()} started (${host.socket}), docker-compose ${run('docker-compose', ['version', '--short']).stdout.trim()}`);
  const images = await baseImages(host);

  if (phases.has('compose')) {
    const deployment = await ComposeDeployment.create(host, report, images, extraCaCertificates(), HOST_BRIDGE_ADDRESS);
    cleanups.push(() => deployment.down());
    await deployment.build(process.env.DEPLOY_TEST_CACHED_BUILD === '1');
    await deployment.up();
    await deployment.tour();
    await deployment.scaling();
    await deployment.faults();
    await deployment.redisBackupAndRestore();
    deployment.memoryFigures();
    await cleanups.pop()!();
  }

  if (phases.has('swarm')) {
    // The nodes load the images from a file: no registry between the daemons.
    await host.dockerAsync(['save', '-o', imagesTar(), 'gleaner:local', images.REDIS_IMAGE]);
    // The host's daemon is done: stop it before the nodes' start (and its rules go with it).
    await cleanups.pop()!();
    const swarm = new SwarmDeployment(report, imagesTar(), images.REDIS_IMAGE);
    cleanups.push(() => swarm.stop());
    await swarm.start();
    await swarm.nodeDown();
  }
}

let failed: Error | null = null;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    report.step(`${signal}: cleaning up`);
    void cleanup().finally(() => process.exit(1));
  });
}
try {
  await main();
} catch (err) {
  failed = err as Error;
  console.error(`\n${failed.stack ?? failed.message}`);
} finally {
  await cleanup();
  // The daemons' logs stay for a failed run.
  if (failed) console.error(`daemon logs: ${WORK_DIR}`);
  else rmSync(WORK_DIR, { recursive: true, force: true, maxRetries: 2 });
}
report.summary(failed ? `FAILED: ${failed.message.split('\n')[0]}` : 'passed');
process.exit(failed ? 1 : 0);
