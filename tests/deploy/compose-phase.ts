import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { startFakeBotPlatform, type FakeBotPlatform } from '../fakes/bot-platform.js';
import { startFakeAnthropic, type FakeProvider, type AnthropicScript } from '../fakes/llm-providers.js';
import { REPO_ROOT } from '../support/processes.js';
import { DockerDaemon, run, runAsync, sleep, waitFor, WORK_DIR, type RunOptions } from './host.js';
import { describeTotals, GatewayClient, range, scrapeAll, stalledJobs, totals, type Outcome } from './load.js';
import { megabytes, seconds, type Report } from './report.js';
import { TargetSite } from './target-site.js';

/**
 * docker-compose.yml run for real with docker-compose 1.29: the image built, every service up
 * and healthy, the README's tour, scaling the scraper-worker, and faults under load.
 */

const PROJECT = 'gl38';
/** The gateway's published port on the host (PORT in docker-compose.yml). */
const GATEWAY_PORT = 18238;
const CORPUS = path.resolve(REPO_ROOT, '../shared/corpus/docs');
const FILES = {
  pdf: path.join(CORPUS, 'pdf/pdf20-utf8-test.pdf'),
  docx: path.join(CORPUS, 'docx/mammoth-footnotes.docx'),
  jpg: path.join(CORPUS, 'image/testocr.jpg'),
};
const SCRAPER_CONCURRENCY = 10;
const BOT_TOKEN = 'gl38-bot-platform-token';
const BOT_FLOW = 'f123';
const LLM_KEY = 'sk-ant-gl38-deploy-test';

export interface ImageSources {
  NODE_IMAGE: string;
  REDIS_IMAGE: string;
}

export class ComposeDeployment {
  readonly client = new GatewayClient(`http://127.0.0.1:${GATEWAY_PORT}`);
  private readonly env: Record<string, string>;
  private readonly memory = new MemoryPeaks();
  /** API keys of accounts with a high rate limit, for the load phases. */
  private loadKeys: string[] = [];
  /** The tour's key and the requests it made (read again after Redis restarts). */
  private tourKey = '';
  private tourRequests: string[] = [];

  private constructor(
    private readonly daemon: DockerDaemon,
    private readonly report: Report,
    readonly site: TargetSite,
    private readonly bot: FakeBotPlatform,
    private readonly llm: FakeProvider<AnthropicScript>,
    images: ImageSources,
    extraCaCerts: string,
  ) {
    this.env = {
      ...daemon.env,
      ...images,
      EXTRA_CA_CERTS: extraCaCerts,
      GLEANER_SECRET: 'gl38-deploy-test-secret-0123456789abcdef',
      PORT: String(GATEWAY_PORT),
      // The target site is on an address of this machine's bridge.
      GLEANER_ALLOW_PRIVATE_NETWORKS: 'true',
      BOT_PLATFORM_BASE_URL: bot.baseUrl,
      // 60 pages are then whole rounds at 1 and at 3 replicas (6 rounds of 10, 2 of 30): the
      // throughput ratio measures the replicas, not the last round's rounding.
      SCRAPER_CONCURRENCY: String(SCRAPER_CONCURRENCY),
      COMPOSE_HTTP_TIMEOUT: '300',
      // docker-compose builds with the `docker` it finds first: Debian's, the daemon's version.
      PATH: `/usr/bin:${process.env.PATH ?? ''}`,
    };
  }

  /** The target site, the bot platform and the LLM API listen on docker0's address, which every container reaches. */
  static async create(daemon: DockerDaemon, report: Report, images: ImageSources, extraCaCerts: string, hostAddress: string): Promise<ComposeDeployment> {
    const site = await TargetSite.start(hostAddress, FILES);
    const bot = await startFakeBotPlatform({ tokens: [BOT_TOKEN], userFields: [{ name: 'city' }], subFlows: [{ name: 'Welcome', sub_flow_ns: BOT_FLOW }], host: hostAddress });
    const llm = await startFakeAnthropic({ apiKeys: [LLM_KEY], host: hostAddress });
    return new ComposeDeployment(daemon, report, site, bot, llm, images, extraCaCerts);
  }

  compose(args: string[], options: RunOptions = {}) {
    return run('docker-compose', ['-p', PROJECT, ...args], { cwd: REPO_ROOT, ...options, env: { ...this.env, ...options.env } });
  }

  composeAsync(args: string[], options: RunOptions = {}) {
    return runAsync('docker-compose', ['-p', PROJECT, ...args], { cwd: REPO_ROOT, ...options, env: { ...this.env, ...options.env } });
  }

  containers(service: string): string[] {
    return this.compose(['ps', '-q', service]).stdout.split('\n').filter(Boolean);
  }

  /** `node packages/platform/src/run.mjs scripts/gleaner-cli.ts …` in the gateway container, as docs/operations.md says. */
  cli(args: string[]): string {
    return this.compose(['exec', '-T', 'gateway', 'node', 'packages/platform/src/run.mjs', 'scripts/gleaner-cli.ts', ...args]).stdout;
  }

  private createKey(account: string, rateLimit?: number): string {
    this.cli(['accounts', 'create', account]);
    if (rateLimit) this.cli(['accounts', 'set-rate-limit', account, String(rateLimit)]);
    return this.cli(['keys', 'create', '--account', account]).trim().split('\n').at(-1)!.trim();
  }

  /** Builds the image: from nothing but the base images, unless `cached` (a quicker run when developing). */
  async build(cached: boolean): Promise<void> {
    const started = Date.now();
    await this.composeAsync(['build', ...(cached ? [] : ['--no-cache']), 'gateway']);
    this.report.figure(`build time (gleaner image, ${cached ? 'build cache used' : 'no cache'})`, seconds(Date.now() - started));
    const size = Number(this.daemon.docker(['image', 'inspect', 'gleaner:local', '--format', '{{.Size}}']).stdout.trim());
    this.report.figure('image size (gleaner:local)', megabytes(size));
  }

  async up(): Promise<void> {
    const started = Date.now();
    await this.composeAsync(['up', '-d']);
    await this.waitHealthy();
    this.report.figure('time to healthy (compose up -d to every container healthy)', seconds(Date.now() - started));
    this.memory.start(this.daemon);
    this.report.check(this.runningServices().sort().join(',') === 'bot-connector,browser-worker,gateway,parser-worker,redis,scraper-worker,webhook-dispatcher', 'compose runs Redis, the gateway and every worker');
    this.checkHardening();
  }

  private runningServices(): string[] {
    return [...new Set(this.daemon.docker(['ps', '--filter', `label=com.docker.compose.project=${PROJECT}`, '--format', '{{.Label "com.docker.compose.service"}}']).stdout.split('\n').filter(Boolean))];
  }

  /** Every container of the project running and healthy. */
  async waitHealthy(timeoutMs = 180_000): Promise<void> {
    await waitFor('every container to be healthy', timeoutMs, () => {
      const ids = this.daemon.docker(['ps', '-aq', '--filter', `label=com.docker.compose.project=${PROJECT}`]).stdout.split('\n').filter(Boolean);
      if (!ids.length) return false;
      const states = this.daemon.docker(['inspect', '--format', '{{.State.Status}} {{if .State.Health}}{{.State.Health.Status}}{{else}}none{{end}}', ...ids]).stdout.trim().split('\n');
      return states.every((s) => s === 'running healthy');
    }, 1000);
  }

  /** What the compose file asks of every Gleaner container, as Docker applied it. */
  private checkHardening(): void {
    const id = this.containers('scraper-worker')[0];
    const inspect = JSON.parse(this.daemon.docker(['inspect', id]).stdout)[0] as {
      Config: { User: string };
      HostConfig: { ReadonlyRootfs: boolean; SecurityOpt: string[]; CapDrop: string[]; Memory: number; Tmpfs: Record<string, string>; LogConfig: { Type: string } };
    };
    const h = inspect.HostConfig;
    this.report.check(
      inspect.Config.User === 'node' && h.ReadonlyRootfs && h.SecurityOpt.includes('no-new-privileges:true') && h.CapDrop.includes('ALL') && '/tmp' in h.Tmpfs && h.Memory > 0 && h.LogConfig.Type === 'json-file',
      `hardening applied: user ${inspect.Config.User}, read-only root, tmpfs /tmp, no-new-privileges, cap_drop ALL, memory limit ${megabytes(h.Memory)}, ${h.LogConfig.Type} logs`,
    );
    const write = this.daemon.docker(['exec', id, 'sh', '-c', 'touch /app/x 2>&1; touch /tmp/x && echo tmp-writable'], { allowFailure: true }).stdout;
    this.report.check(/Read-only file system/.test(write) && /tmp-writable/.test(write), 'the root filesystem refuses writes, /tmp takes them');
    const logLine = this.compose(['logs', '--no-color', '--tail', '5', 'scraper-worker']).stdout.split('\n').find((l) => l.includes('{'))!;
    this.report.check(Boolean(JSON.parse(logLine.slice(logLine.indexOf('{'))).message), 'service logs are JSON lines on stdout');
  }

  // -------------------------------------------------------------------------------------------
  // The README's tour, against the compose deployment

  async tour(): Promise<void> {
    const c = this.client;
    const key = this.createKey('acme');
    this.tourKey = key;
    this.report.check(key.startsWith('glk_'), 'accounts create / keys create in the gateway container');
    const scrape = await c.request('POST', '/web-scrapper/', key, { url: this.site.page('tour'), output_type: 'markdown' });
    this.report.check(scrape.status === 200 && String(scrape.body.markdown_content).startsWith('# Page tour'), 'POST /web-scrapper/ markdown', scrape);
    const rendered = await c.request('POST', '/web-scrapper/', key, { url: this.site.page('tour-rendered'), render_js: true });
    this.report.check(rendered.status === 200 && (rendered.body.meta as { rendered?: boolean }).rendered === true, 'render_js in Chromium (browser-worker, read-only root)', rendered);
    this.cli(['llm-keys', 'add', '--account', 'acme', '--provider', 'anthropic', '--key', LLM_KEY, '--base-url', this.llm.baseUrl]);
    const llm = await c.request('POST', '/web-scrapper/', key, { url: this.site.page('tour-llm'), use_llm: true, prompt: 'Give the title as {"title": string}' });
    this.report.check(llm.status === 200 && llm.body.llm_output !== undefined && this.llm.requests.length === 1, 'llm-keys add, then use_llm (against a local Anthropic-compatible API)', llm);
    const byId = await c.request('GET', `/web-scrapper/${String(scrape.body.request_id)}`, key);
    this.report.check(byId.status === 200 && byId.body.status === 'completed', 'GET /web-scrapper/{request_id}', byId);
    const v1 = await c.request('POST', '/v1/llm-web-scrapper', key, { url: this.site.page('tour-v1'), selector: 'h1', use_llm: false });
    this.report.check(v1.status === 200 && JSON.stringify(v1.body).includes('Page tour-v1'), 'POST /v1/llm-web-scrapper with a selector', v1);
    const parse = await c.request('POST', '/documents/parse', key, { url: `${this.site.url}/file?name=pdf&type=application/pdf`, output: 'markdown' });
    this.report.check(parse.status === 200 && String(parse.body.data).includes('PDF 2.0 with UTF-8 test file'), 'POST /documents/parse by URL (a corpus PDF)', parse);
    const status = await c.request('GET', `/documents/status/${String(parse.body.requestId)}`, key);
    this.report.check(status.status === 200 && status.body.status === 'COMPLETED', 'GET /documents/status/{requestId}', status);
    const upload = await this.upload(key, FILES.docx, 'report.docx');
    this.report.check(upload.status === 200 && String(upload.body.data).startsWith('Ouch'), 'upload (multipart) of a .docx through the uploads volume', upload);
    const ocr = await this.upload(key, FILES.jpg, 'scan.jpg');
    this.report.check(ocr.status === 200 && String(ocr.body.data).includes('12 point text'), 'upload of a scanned image: OCR in the parser-worker', ocr);
    const bot = await c.request('POST', '/bot-webhook', null, { phone_number: '+57 300 123 4567', flow_ns: BOT_FLOW, user_fields: { city: 'Bogotá' } }, { authorization: `Bearer ${BOT_TOKEN}` });
    this.report.check(bot.status === 200 && (bot.body.flow_sent as { success?: boolean }).success === true && this.bot.sentFlows.length === 1, 'POST /bot-webhook (bot-connector against a local bot platform)', { bot, flows: this.bot.sentFlows });
    const usage = await c.request('GET', '/account/usage', key);
    this.report.check(usage.status === 200, 'GET /account/usage', usage);
    const hook = await c.request('POST', '/account/webhooks', key, { url: `${this.site.url}/hook`, families: ['scrape'] });
    this.report.check(hook.status < 300, 'POST /account/webhooks', hook);
    const withHook = await c.request('POST', '/web-scrapper/', key, { url: this.site.page('tour-webhook'), webhook: `${this.site.url}/hook` });
    await waitFor('the webhook delivery', 60_000, () => this.site.hooks.some((h) => JSON.stringify(h).includes(String(withHook.body.request_id))));
    this.report.check(true, 'a request with "webhook" is delivered (webhook-dispatcher)');
    const ready = await fetch(`${c.baseUrl}/readyz`);
    const metrics = await (await fetch(`${c.baseUrl}/metrics`)).text();
    this.report.check(ready.status === 200 && metrics.includes('gleaner_http_request_duration_seconds'), 'GET /readyz, /metrics');
    const docs = await fetch(`${c.baseUrl}/docs`);
    const consolePage = await fetch(`${c.baseUrl}/console`);
    this.report.check(docs.status === 200 && consolePage.status === 200, 'GET /docs and /console');
    this.tourRequests = [String(scrape.body.request_id), String(rendered.body.request_id), String(withHook.body.request_id)];
  }

  private async upload(key: string, file: string, name: string) {
    const form = new FormData();
    form.append('file', new Blob([readFileSync(file)]), name);
    const res = await fetch(`${this.client.baseUrl}/documents/parse`, { method: 'POST', headers: { 'x-api-key': key }, body: form });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  // -------------------------------------------------------------------------------------------
  // Scaling

  private async prepareLoadKeys(): Promise<void> {
    // Eight accounts: one account may hold half a worker's concurrency over every replica
    // (ACCOUNT_MAX_CONCURRENT_JOBS: 8 x 5 places for 30 pages at once), and the rate limit is per key.
    for (let i = 1; i <= 8; i++) this.loadKeys.push(this.createKey(`load-${i}`, 100_000));
  }

  async scale(replicas: number): Promise<void> {
    await this.composeAsync(['up', '-d', '--no-recreate', '--scale', `scraper-worker=${replicas}`]);
    await this.waitHealthy();
    this.report.check(this.containers('scraper-worker').length === replicas, `scraper-worker scaled to ${replicas} (docker-compose up -d --scale scraper-worker=${replicas})`);
  }

  async scaling(): Promise<void> {
    await this.prepareLoadKeys();
    const rates: number[] = [];
    for (const replicas of [1, 3]) {
      await this.scale(replicas);
      const urls = Array.from({ length: 60 }, (_, i) => this.site.page(`scale-${replicas}-${i}`, 2000));
      const started = Date.now();
      const outcomes = await scrapeAll(this.client, this.loadKeys, urls, { pollUntil: Date.now() + 180_000 });
      const took = Date.now() - started;
      const t = totals(outcomes);
      this.report.check(t.completed === 60, `60 pages of 2 s at ${replicas} replica(s): ${describeTotals(t)}`);
      rates.push(60 / (took / 1000));
      this.report.figure(`throughput, 60 pages of 2 s, scraper-worker x${replicas} (SCRAPER_CONCURRENCY ${SCRAPER_CONCURRENCY})`, `${seconds(took)}, ${rates.at(-1)!.toFixed(2)} pages/s`);
    }
    this.report.figure('throughput at 3 replicas / at 1', `${(rates[1] / rates[0]).toFixed(2)}x (ideal 3x: 6 rounds of 2 s on one replica, 2 on three)`);
    this.report.check(rates[1] / rates[0] > 2, 'throughput grows with replicas');
    await this.scaleOthers();
  }

  /** parser-worker and browser-worker scale the same way: uploads reach every parser replica through the shared volume. */
  private async scaleOthers(): Promise<void> {
    const scale = (n: number) => ['up', '-d', '--no-recreate', '--scale', 'scraper-worker=3', '--scale', `parser-worker=${n}`, '--scale', `browser-worker=${n}`];
    await this.composeAsync(scale(2));
    await this.waitHealthy();
    const uploads = await Promise.all(Array.from({ length: 6 }, (_, i) => this.upload(this.loadKeys[i], FILES.docx, `scaled-${i}.docx`)));
    const renders = await Promise.all([0, 1, 2, 3].map((i) => this.client.request('POST', '/web-scrapper/', this.loadKeys[i], { url: this.site.page(`scaled-render-${i}`), render_js: true })));
    this.report.check(
      this.containers('parser-worker').length === 2 && this.containers('browser-worker').length === 2 && uploads.every((u) => u.status === 200 && String(u.body.data).startsWith('Ouch')) && renders.every((r) => r.status === 200 && (r.body.meta as { rendered?: boolean }).rendered === true),
      'parser-worker and browser-worker scaled to 2: 6 uploads parsed from the shared volume, 4 pages rendered',
      { uploads: uploads.map((u) => u.status), renders: renders.map((r) => r.status) },
    );
    await this.composeAsync(scale(1));
    await this.waitHealthy();
  }

  // -------------------------------------------------------------------------------------------
  // Faults

  private faultFigure(name: string, outcomes: Outcome[], extra = ''): void {
    const t = totals(outcomes);
    this.report.figure(`fault: ${name}`, `${describeTotals(t)}${extra ? `; ${extra}` : ''}`);
    const bad = outcomes.filter((o) => o.end !== 'completed' && o.requestId);
    if (bad.length) this.report.step(`  not completed: ${bad.slice(0, 5).map((o) => `${o.url} ${o.end} ${o.detail ?? ''}`).join(' | ')}`);
  }

  /** Container id by its address on the project's network (the target site sees who fetched). */
  private containerByAddress(): Map<string, string> {
    const map = new Map<string, string>();
    const ids = this.daemon.docker(['ps', '-q', '--filter', `label=com.docker.compose.project=${PROJECT}`]).stdout.split('\n').filter(Boolean);
    for (const line of this.daemon.docker(['inspect', '--format', '{{.Id}} {{range .NetworkSettings.Networks}}{{.IPAddress}} {{end}}', ...ids]).stdout.trim().split('\n')) {
      const [id, ...addresses] = line.trim().split(' ');
      for (const a of addresses) map.set(a, id);
    }
    return map;
  }

  /** docker kill a scraper-worker holding jobs: they run again elsewhere once their lock lapses. */
  async killWorkerMidJob(): Promise<void> {
    const ids = Array.from({ length: 12 }, (_, i) => `kill-${i}`);
    const running = scrapeAll(this.client, this.loadKeys, ids.map((id) => this.site.page(id, 8000)), { pollUntil: Date.now() + 150_000 });
    await waitFor('every page to be requested', 30_000, () => ids.every((id) => this.site.hitsOf(id).length > 0), 100);
    const owners = this.containerByAddress();
    const byContainer = new Map<string, string[]>();
    for (const id of ids) {
      const owner = owners.get(this.site.hitsOf(id)[0].from) ?? 'unknown';
      byContainer.set(owner, [...(byContainer.get(owner) ?? []), id]);
    }
    const [victim, held] = [...byContainer.entries()].sort((a, b) => b[1].length - a[1].length)[0];
    const killedAt = Date.now();
    this.daemon.docker(['kill', victim]);
    this.report.step(`killed scraper-worker ${victim.slice(0, 12)} (SIGKILL) holding ${held.length} of 12 running jobs`);
    const outcomes = await running;
    const heldRequests = new Set(held.map((id) => outcomes.find((o) => o.url === this.site.page(id, 8000))?.requestId));
    const stalled = stalledJobs(this.compose(['logs', '--no-color', 'scraper-worker']).stdout, killedAt).filter((s) => heldRequests.has(s.jobId));
    const found = stalled.map((s) => s.at - killedAt);
    const rerun = held.map((id) => this.site.hitsOf(id).find((h) => h.at > killedAt)).filter(Boolean).map((h) => h!.at - killedAt);
    this.faultFigure(
      'docker kill a scraper-worker mid-job',
      outcomes,
      `its ${held.length} jobs found stalled ${range(found)} after the kill (lock 30 s, stall check every 15 s), run again ${range(rerun)} after (one at a time per worker: crash isolation runs a stalled job alone)`,
    );
    this.report.check(totals(outcomes).completed === 12 && rerun.length === held.length && found.length === held.length, 'every job of the killed worker was taken over and completed', { found, rerun });
    const state = this.daemon.docker(['inspect', '--format', '{{.State.Status}}', victim]).stdout.trim();
    // Docker does not restart a container it was told to kill; `up` brings the service back to its scale.
    await this.composeAsync(['up', '-d', '--no-recreate', '--scale', 'scraper-worker=3']);
    await this.waitHealthy();
    this.report.step(`the killed container was ${state}; docker-compose up -d --scale scraper-worker=3 started it again`);
  }

  /**
   * The gateway restarted while clients wait in their window (pages of 25 s: longer than the
   * gateway's shutdown deadline, so it stops with the requests unanswered); they retry with their
   * Idempotency-Key.
   */
  async restartGateway(): Promise<void> {
    const ids = Array.from({ length: 10 }, (_, i) => `gateway-${i}`);
    const running = Promise.all(
      ids.map((id, i) => this.client.scrape(this.loadKeys[i % this.loadKeys.length], this.site.page(id, 25_000), { retryUntil: Date.now() + 120_000, pollUntil: Date.now() + 150_000 })),
    );
    await waitFor('every page to be requested', 30_000, () => ids.every((id) => this.site.hitsOf(id).length > 0), 100);
    const restart = this.composeAsync(['restart', 'gateway']);
    this.report.step('restarting the gateway (docker-compose restart gateway) with 10 clients in their window');
    const outcomes = await running;
    await restart;
    const retried = outcomes.filter((o) => o.submitAttempts > 1).length;
    const fetchedTwice = ids.filter((id) => this.site.hitsOf(id).length > 1).length;
    this.faultFigure('restart the gateway mid-window', outcomes, `${retried} clients retried with their Idempotency-Key, pages fetched twice: ${fetchedTwice}`);
    const t = totals(outcomes);
    this.report.check(t.completed === 10 && fetchedTwice === 0, 'every client got its request once');
    await this.waitHealthy();
  }

  /** Redis restarted under load: what it acknowledged comes back from its AOF. */
  async restartRedis(): Promise<void> {
    const ids = Array.from({ length: 12 }, (_, i) => `redis-${i}`);
    const first = scrapeAll(this.client, this.loadKeys, ids.map((id) => this.site.page(id, 4000)), { pollUntil: Date.now() + 150_000 });
    await waitFor('every page to be requested', 30_000, () => ids.every((id) => this.site.hitsOf(id).length > 0), 100);
    const restart = this.composeAsync(['restart', 'redis']);
    this.report.step('restarting Redis (docker-compose restart redis) with 12 jobs running; 12 more submitted meanwhile');
    const during: Promise<Outcome[]> = (async () => {
      const out: Outcome[] = [];
      for (let i = 0; i < 12; i++) {
        out.push(await this.client.scrape(this.loadKeys[i % this.loadKeys.length], this.site.page(`redis-during-${i}`, 1000), { pollUntil: Date.now() + 150_000 }).catch((e: Error) => ({ url: '', end: 'refused' as const, submitAttempts: 1, detail: e.message })));
        await sleep(500);
      }
      return out;
    })();
    await restart;
    const outcomes = [...(await first), ...(await during)];
    this.faultFigure('restart Redis (AOF, appendfsync everysec)', outcomes);
    const t = totals(outcomes);
    this.report.check(t.lost === 0 && t.failed === 0 && t.accepted === t.completed, 'nothing accepted is lost');
    const kept = await Promise.all(this.tourRequests.map((id) => this.client.request('GET', `/web-scrapper/${id}`, this.tourKey)));
    this.report.check(kept.every((r) => r.status === 200 && r.body.status === 'completed'), "the tour's account, key and requests are still there after the restart");
    await this.waitHealthy();
  }

  /** Each scraper-worker restarted in turn (SIGTERM: running jobs finish) while requests keep coming. */
  async rollingRestart(): Promise<void> {
    const workers = this.containers('scraper-worker');
    const submitted: Array<Promise<Outcome>> = [];
    let stop = false;
    let n = 0;
    const load = (async () => {
      while (!stop) {
        const id = `rolling-${n}`;
        submitted.push(this.client.scrape(this.loadKeys[n % this.loadKeys.length], this.site.page(id, 2000), { pollUntil: Date.now() + 180_000 }));
        n++;
        await sleep(250);
      }
    })();
    await sleep(3000);
    for (const worker of workers) {
      await this.daemon.dockerAsync(['restart', '--time', '30', worker]);
      await this.waitHealthy();
      this.report.step(`restarted scraper-worker ${worker.slice(0, 12)} (SIGTERM, then healthy again)`);
    }
    await sleep(2000);
    stop = true;
    await load;
    const outcomes = await Promise.all(submitted);
    const fetchedTwice = Array.from({ length: n }, (_, i) => `rolling-${i}`).filter((id) => this.site.hitsOf(id).length > 1).length;
    this.faultFigure(`rolling restart of ${workers.length} scraper-workers under load (4 requests/s)`, outcomes, `jobs run twice: ${fetchedTwice}`);
    const t = totals(outcomes);
    this.report.check(t.completed === t.asked && fetchedTwice === 0, 'nothing lost, no job run twice');
  }

  async faults(): Promise<void> {
    await this.killWorkerMidJob();
    await this.restartGateway();
    await this.restartRedis();
    await this.rollingRestart();
  }

  /**
   * docs/operations.md's Redis backup and restore, done: the AOF folder archived while Redis runs
   * (automatic rewrites paused), every service stopped, the data volume emptied as a lost disk
   * would be, the archive put back; Redis starts from it with every key.
   */
  async redisBackupAndRestore(): Promise<void> {
    const redis = this.containers('redis')[0];
    const image = String(this.env.REDIS_IMAGE);
    const cli = (...args: string[]) => this.compose(['exec', '-T', 'redis', 'redis-cli', ...args]).stdout.trim();
    const archive = 'redis-backup.tgz';
    cli('CONFIG', 'SET', 'auto-aof-rewrite-percentage', '0');
    await waitFor('no AOF rewrite in progress', 60_000, () => /aof_rewrite_in_progress:0/.test(cli('INFO', 'persistence')));
    // Keys with a time to live (locks, rate-limit windows) may be gone by the restore; the others may not.
    const keyspace = () => /db0:keys=(\d+),expires=(\d+)/.exec(cli('INFO', 'keyspace'))!.slice(1).map(Number);
    const [keys, expiring] = keyspace();
    this.daemon.docker(['run', '--rm', '--user', '0', '--volumes-from', redis, '-v', `${WORK_DIR}:/backup`, image, 'tar', '-C', '/data', '-czf', `/backup/${archive}`, 'appendonlydir']);
    cli('CONFIG', 'SET', 'auto-aof-rewrite-percentage', '100');
    const check = this.daemon.docker(['run', '--rm', '--user', '0', '-v', `${WORK_DIR}:/backup`, '--entrypoint', 'sh', image, '-c', `mkdir /tmp/r && tar -C /tmp/r -xzf /backup/${archive} && cd /tmp/r/appendonlydir && redis-check-aof *.manifest`]);
    this.report.check(/All AOF files and manifest are valid/.test(check.stdout), `backup: the AOF folder archived while Redis runs (${Math.ceil(statSync(path.join(WORK_DIR, archive)).size / 1024)} KB, ${keys} keys), redis-check-aof: valid`, check.stdout);
    await this.composeAsync(['stop']);
    this.daemon.docker(['run', '--rm', '--user', '0', '-v', `${PROJECT}_redis-data:/data`, '-v', `${WORK_DIR}:/backup`, '--entrypoint', 'sh', image, '-c', `rm -rf /data/* && tar -C /data -xzf /backup/${archive} && chown -R redis:redis /data`]);
    await this.composeAsync(['start']);
    await this.waitHealthy();
    const [restored] = keyspace();
    const kept = await Promise.all(this.tourRequests.map((id) => this.client.request('GET', `/web-scrapper/${id}`, this.tourKey)));
    this.report.check(
      restored >= keys - expiring && kept.every((r) => r.status === 200),
      `restore: every service stopped, the volume emptied, the archive put back: Redis started with ${restored} keys (${keys} backed up, ${expiring} of them with a time to live), the tour's requests answer again`,
      { keys, expiring, restored },
    );
  }

  /** Peak memory of each service over the whole compose run, against its limit in docker-compose.yml. */
  memoryFigures(): void {
    this.memory.stop();
    for (const [service, peak] of [...this.memory.peaks.entries()].sort()) {
      const limit = this.memory.limits.get(service);
      this.report.figure(`memory peak: ${service}`, `${megabytes(peak)}${limit ? ` (limit ${megabytes(limit)})` : ' (no limit)'}`);
    }
  }

  async down(): Promise<void> {
    this.memory.stop();
    await this.composeAsync(['down', '-v', '--remove-orphans', '--timeout', '30'], { allowFailure: true });
    await this.site.close();
    await this.bot.close();
    await this.llm.close();
  }
}

/**
 * Peak memory of each compose service: the cgroup's high-water mark (memory.max_usage_in_bytes,
 * cgroup v1; memory.peak on v2), read every 2 s, since a restarted container starts a new one.
 */
class MemoryPeaks {
  readonly peaks = new Map<string, number>();
  readonly limits = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private containers = new Map<string, string>();

  start(daemon: DockerDaemon): void {
    let round = 0;
    const tick = () => {
      if (round++ % 5 === 0) {
        const lines = daemon.docker(['ps', '--no-trunc', '--filter', `label=com.docker.compose.project=${PROJECT}`, '--format', '{{.ID}} {{.Label "com.docker.compose.service"}}'], { allowFailure: true }).stdout;
        this.containers = new Map(lines.split('\n').filter(Boolean).map((l) => l.split(' ') as [string, string]));
        for (const [id, service] of this.containers) {
          if (this.limits.has(service)) continue;
          const limit = Number(daemon.docker(['inspect', '--format', '{{.HostConfig.Memory}}', id], { allowFailure: true }).stdout.trim());
          this.limits.set(service, limit);
        }
      }
      for (const [id, service] of this.containers) {
        const peak = readNumber(`/sys/fs/cgroup/memory/docker/${id}/memory.max_usage_in_bytes`) ?? readNumber(`/sys/fs/cgroup/system.slice/docker-${id}.scope/memory.peak`) ?? readNumber(`/sys/fs/cgroup/docker/${id}/memory.peak`);
        if (peak !== null) this.peaks.set(service, Math.max(peak, this.peaks.get(service) ?? 0));
      }
    };
    tick();
    this.timer = setInterval(tick, 2000);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}

function readNumber(file: string): number | null {
  try {
    return Number(readFileSync(file, 'utf8').trim());
  } catch {
    return null;
  }
}
