import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLogger } from '@gleaner/platform';
import { signWebhook } from '@gleaner/safe-fetch';
import { loadScraperWorkerConfig, startScraperWorker, type RunningService } from '@gleaner/scraper-worker';
import { loadWebhookDispatcherConfig, startWebhookDispatcher } from '@gleaner/webhook-dispatcher';
import { GleanerApi } from '../packages/n8n-nodes-gleaner/credentials/GleanerApi.credentials.js';
import { Gleaner } from '../packages/n8n-nodes-gleaner/nodes/Gleaner/Gleaner.node.js';
import { GleanerTrigger } from '../packages/n8n-nodes-gleaner/nodes/GleanerTrigger/GleanerTrigger.node.js';
import { createExecuteContext, createHookContext, type GleanerCredentials } from '../packages/n8n-nodes-gleaner/test/support/n8n-context.js';
import { hostTrigger } from '../packages/n8n-nodes-gleaner/test/support/webhook-host.js';
import { serviceEnv } from './support/env.js';
import { GatewayHarness } from './support/gateway.js';
import { html, startPageServer } from './support/page-server.js';
import { deleteKeysWithPrefix, testPrefix } from './support/redis.js';
import { waitFor } from './support/webhook-receiver.js';

/**
 * The n8n nodes against the real service: gateway, scraper worker and webhook dispatcher in
 * process on real Redis, pages from a local server. The gateway's sync window is shortened so
 * that a page slower than it exercises the 202-and-poll path; one scrape in beforeAll warms the
 * worker's extraction thread so that a normal page fits inside the window.
 */
const prefix = testPrefix('n8n');
const ARTICLE = '<article><h1>Harvest notes</h1><p>The gleaners walked the field after the reapers and gathered every ear that was left behind.</p></article>';
let h: GatewayHarness;
let worker: RunningService;
let dispatcher: RunningService;
let site: Awaited<ReturnType<typeof startPageServer>>;
let credentials: GleanerCredentials;

beforeAll(async () => {
  site = await startPageServer({
    '/article': html(ARTICLE, '<title>Harvest notes</title>'),
    '/warm-up': html(ARTICLE, '<title>Warm-up</title>'),
    '/site/': html('<h1>Field guide</h1><a href="/site/wheat">Wheat</a> <a href="/site/barley">Barley</a>', '<title>Field guide</title>'),
    '/site/wheat': html('<article><h1>Wheat</h1><p>Wheat is gleaned by hand after the combine has passed, ear by ear, along the edges of the field.</p></article>', '<title>Wheat</title>'),
    '/site/barley': html('<article><h1>Barley</h1><p>Barley ears break easily, so gleaners carry sacks and work the rows in the cool of the morning.</p></article>', '<title>Barley</title>'),
    '/slow-article': async (req, res) => {
      await new Promise((resolve) => setTimeout(resolve, 6000));
      html(ARTICLE, '<title>Harvest notes</title>')(req, res);
    },
  });
  h = await GatewayHarness.start(prefix, { SYNC_WINDOW_MS: '5000' });
  const logger = createLogger('n8n-test', 'error');
  worker = await startScraperWorker(loadScraperWorkerConfig(serviceEnv(prefix, { SCRAPER_CONCURRENCY: '2', SCRAPER_EXTRACT_THREADS: '1' })), logger);
  dispatcher = await startWebhookDispatcher(loadWebhookDispatcherConfig(serviceEnv(prefix, { WEBHOOK_BACKOFF_BASE_MS: '200' })), logger);
  const account = await h.account('n8n-user');
  credentials = { baseUrl: h.url, apiKey: account.apiKey };
  await scrape('/warm-up');
}, 60_000);

afterAll(async () => {
  await dispatcher?.stop();
  await worker?.stop();
  await h?.stop();
  await site?.close();
  await deleteKeysWithPrefix(prefix);
});

const action = new Gleaner();
const trigger = new GleanerTrigger();

async function scrape(path: string) {
  const { ctx } = createExecuteContext({
    description: action.description,
    credentials,
    parameters: { resource: 'webPage', operation: 'scrape', url: `${site.url}${path}`, outputType: 'markdown', maxWaitSeconds: 30, pollIntervalSeconds: 0.5 },
  });
  const [[item]] = await action.execute.call(ctx);
  return item.json;
}

describe('Gleaner API credential test', () => {
  /** The credential's declared test request, with its expressions filled in as n8n fills them. */
  async function credentialTest(apiKey: string): Promise<number> {
    const credential = new GleanerApi();
    const { url, method } = credential.test.request;
    const headers = credential.authenticate.properties.headers as Record<string, string>;
    expect(credential.test.request.baseURL).toBe('={{$credentials.baseUrl}}');
    expect(headers).toEqual({ 'x-api-key': '={{$credentials.apiKey}}' });
    return (await fetch(`${h.url}${url}`, { method, headers: { 'x-api-key': apiKey } })).status;
  }

  it('passes for a key of any scope (a scrape-only or parse-only key is enough for the action node) and fails for an unknown key', async () => {
    expect(await credentialTest((await h.account('n8n-scrape-only', ['scrape'])).apiKey)).toBe(200);
    expect(await credentialTest((await h.account('n8n-parse-only', ['parse'])).apiKey)).toBe(200);
    expect(await credentialTest('glk_0000000000000000_nope')).toBe(401);
  });
});

const gatewayGet = async (path: string) => (await fetch(`${h.url}${path}`, { headers: { 'x-api-key': credentials.apiKey } })).json() as Promise<Record<string, unknown>>;

describe('Gleaner node', () => {
  it('gets a scrape result from the real gateway within its sync window', async () => {
    const result = await scrape('/article');
    // The status endpoint's shape, as a result followed after a 202 and the trigger's delivery have it.
    expect(result).toMatchObject({ status: 'completed', url: `${site.url}/article` });
    const content = result.content as { text: string; markdown: string; meta: { title: string } };
    expect(content.text).toContain('gathered every ear');
    expect(content.markdown).toContain('gathered every ear');
    expect(content.meta.title).toBe('Harvest notes');
    expect(result.tags).toEqual(['n8n-workflow:wf-test']);
  });

  it('follows a 202 on the real status endpoint to the completed result', async () => {
    const result = await scrape('/slow-article');
    expect(result).toMatchObject({ status: 'completed' });
    expect(result).not.toHaveProperty('wait_timed_out');
    expect((result.content as { text: string }).text).toContain('gathered every ear');
  });
});

describe('Gleaner Trigger', () => {
  it('accepts a delivery signed by the service signing function with the account secret, and refuses a forged one', async () => {
    const { secret } = (await gatewayGet('/account/webhook-secret')) as { secret: string };
    const host = await hostTrigger({ credentials, families: ['scrape'], staticData: {} });
    try {
      const body = JSON.stringify({ request_id: 'r-1', status: 'completed', url: 'https://example.com/', timestamp: 1, content: { text: 'x' } });
      const post = (signature: string) =>
        fetch(host.url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-webhook-signature': signature, 'x-request-id': 'r-1' }, body });
      const now = Math.floor(Date.now() / 1000);

      expect((await post(signWebhook(secret, body, now))).status).toBe(200);
      expect((await post(signWebhook('forged-secret', body, now))).status).toBe(401);
      expect(host.deliveries.map((d) => [d.status, d.started?.length ?? 0])).toEqual([
        [200, 1],
        [401, 0],
      ]);
      expect(host.deliveries[0].started?.[0].json).toMatchObject({ request_id: 'r-1', status: 'completed', delivery: { request_id: 'r-1' } });
    } finally {
      await host.close();
    }
  });

  it('subscribes, receives the real dispatcher delivery of a scrape, and unsubscribes', async () => {
    const staticData = {};
    const host = await hostTrigger({ credentials, families: ['scrape'], staticData });
    const hook = () => createHookContext({ description: trigger.description, credentials, parameters: { families: ['scrape'] }, staticData, webhookUrl: host.url }).ctx;
    try {
      expect(await trigger.webhookMethods.default.checkExists.call(hook())).toBe(false);
      expect(await trigger.webhookMethods.default.create.call(hook())).toBe(true);
      expect(await trigger.webhookMethods.default.checkExists.call(hook())).toBe(true);
      expect((await gatewayGet('/account/webhooks')).webhooks).toEqual([expect.objectContaining({ url: host.url, families: ['scrape'] })]);

      const result = await scrape('/article');
      const deliveries = await waitFor(() => host.deliveries, (d) => d.some((x) => x.started));
      const started = deliveries.find((d) => d.started)!.started![0].json;
      expect(started).toMatchObject({ request_id: result.request_id, status: 'completed', tags: ['n8n-workflow:wf-test'], delivery: { request_id: result.request_id } });
      expect((started.content as { text: string }).text).toContain('gathered every ear');
      expect(deliveries.every((d) => d.status === 200)).toBe(true);

      expect(await trigger.webhookMethods.default.delete.call(hook())).toBe(true);
      expect((await gatewayGet('/account/webhooks')).webhooks).toEqual([]);
      expect(staticData).toEqual({});
    } finally {
      await host.close();
    }
  });
});

describe('Website operations', () => {
  it('crawls a site into one item per page, maps it into one item per URL, and a trigger subscribed to crawls starts with the end notice', async () => {
    const staticData = {};
    const host = await hostTrigger({ credentials, families: ['crawl'], staticData });
    const hook = () => createHookContext({ description: trigger.description, credentials, parameters: { families: ['crawl'] }, staticData, webhookUrl: host.url }).ctx;
    try {
      expect(await trigger.webhookMethods.default.create.call(hook())).toBe(true);
      const execute = async (parameters: Record<string, unknown>) => {
        const { ctx } = createExecuteContext({ description: action.description, credentials, parameters: parameters as never });
        const [items] = await action.execute.call(ctx);
        return items.map((item) => item.json);
      };
      const pages = await execute({ resource: 'website', operation: 'crawl', url: `${site.url}/site/`, maxPages: 10, crawlOptions: { includePaths: '^/site/' }, maxWaitSeconds: 30, pollIntervalSeconds: 0.3 });
      expect(pages.map((p) => (p.content as { meta: { title: string } }).meta.title).sort()).toEqual(['Barley', 'Field guide', 'Wheat']);
      const wheat = pages.find((p) => p.url === `${site.url}/site/wheat`)!;
      expect(wheat).toMatchObject({ status: 'completed', depth: 1, tags: ['n8n-workflow:wf-test'] });
      expect((wheat.content as { markdown: string }).markdown).toContain('ear by ear');
      const crawlId = String(pages[0].request_id);
      expect(new Set(pages.map((p) => p.request_id))).toEqual(new Set([crawlId]));

      const links = await execute({ resource: 'website', operation: 'map', url: `${site.url}/site/`, mapOptions: { includePaths: '^/site/' } });
      expect(links.map((l) => [l.url, l.title])).toEqual([
        [`${site.url}/site/`, 'Field guide'],
        [`${site.url}/site/wheat`, 'Wheat'],
        [`${site.url}/site/barley`, 'Barley'],
      ]);

      // The account's crawl ended: the trigger (another workflow) starts with crawl.completed.
      const deliveries = await waitFor(() => host.deliveries, (d) => d.some((x) => x.started));
      expect(deliveries.find((d) => d.started)!.started![0].json).toMatchObject({ type: 'crawl.completed', request_id: crawlId, status: 'completed', counts: { completed: 3 }, delivery: { request_id: crawlId } });
      expect(await trigger.webhookMethods.default.delete.call(hook())).toBe(true);
    } finally {
      await host.close();
    }
  }, 60_000);
});
