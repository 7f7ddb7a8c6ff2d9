import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startFakeAnthropic, startFakeOpenAICompatible, type AnthropicScript, type FakeProvider, type OpenAIScript } from './fakes/llm-providers.js';
import { serviceEnv } from './support/env.js';
import { startGatewayProcess, type GatewayProcess } from './support/gateway-process.js';
import { html, startPageServer } from './support/page-server.js';
import { startService, type ServiceProcess } from './support/processes.js';
import { deleteKeysWithPrefix, testPrefix } from './support/redis.js';
import { createAccountWithKey, openTestStores, type TestStores } from './support/test-stores.js';
import { waitFor } from './support/webhook-receiver.js';
import { reportFigures } from './support/figures.js';

/**
 * Issue 24, item 1: a tenant registers a language-model key whose base URL answers 200 with a JSON
 * body that never ends. Before, the scraper-worker read it whole on its main thread, grew to 4.3
 * GB and aborted, failing the jobs of other accounts running beside it. Here the real gateway and
 * scraper-worker run as processes; the hostile provider is served locally (tests/fakes). The
 * request fails with E008, the worker process stays up and small, and it goes on serving.
 */
const SECRET = 'test-secret-0123456789abcdef';
const prefix = testPrefix('hostile-llm');
const env = serviceEnv(prefix, { SYNC_WINDOW_MS: '15000', SCRAPER_CONCURRENCY: '4', SCRAPER_EXTRACT_THREADS: '1' });
const sentence = 'The cooperative gleaned 400 kilos of pears this autumn.';

let stores: TestStores;
let gateway: GatewayProcess;
let worker: ServiceProcess;
let site: Awaited<ReturnType<typeof startPageServer>>;
let openai: FakeProvider<OpenAIScript>;
let anthropic: FakeProvider<AnthropicScript>;
let apiKey: string;
let keys: { openai: string; anthropic: string };

const alive = (p: ServiceProcess) => p.child.exitCode === null && p.child.signalCode === null;

/** Resident memory of a process in MB, read from Linux /proc. */
function residentMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}

async function scrape(body: Record<string, unknown>): Promise<{ status: number; body: any }> {
  const res = await fetch(`${gateway.url}/web-scrapper/`, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

beforeAll(async () => {
  stores = openTestStores(prefix, SECRET);
  const account = await createAccountWithKey(stores.stores, 'tenant', { ratePerMinute: 10_000 });
  apiKey = account.apiKey;
  [site, openai, anthropic] = await Promise.all([
    startPageServer({ '/article': html(`<article><h1>Pears</h1><p>${sentence}</p><p>More about the orchard and the volunteers who came.</p></article>`) }),
    startFakeOpenAICompatible(),
    startFakeAnthropic(),
  ]);
  keys = {
    openai: (await stores.stores.llmKeys.add(account.accountId, { provider: 'openai-compatible', secret: 'sk-hostile-openai-0001', baseUrl: openai.baseUrl })).id,
    anthropic: (await stores.stores.llmKeys.add(account.accountId, { provider: 'anthropic', secret: 'sk-hostile-anthropic-0001', baseUrl: anthropic.baseUrl })).id,
  };
  [gateway, worker] = await Promise.all([startGatewayProcess(env), (async () => {
    const w = startService('scraper-worker', env);
    await w.waitFor(/ready/, 90_000);
    return w;
  })()]);
}, 120_000);

afterAll(async () => {
  await Promise.all([gateway?.process.kill('SIGKILL'), worker?.kill('SIGKILL')]);
  await Promise.all([site?.close(), openai?.close(), anthropic?.close()]);
  await stores?.close();
  await deleteKeysWithPrefix(prefix);
});

describe('a language-model endpoint whose answer never ends', () => {
  for (const provider of ['openai', 'anthropic'] as const) {
    it(`${provider}: fails that request with E008 at the 2 MB limit; the worker stays up and serves the next one`, async () => {
      const fake = provider === 'openai' ? openai : anthropic;
      fake.reset();
      fake.enqueue({ endless: true }, { endless: true }, { endless: true });
      const rssBefore = residentMb(worker.child.pid!);
      const answer = await scrape({ url: `${site.url}/article`, use_llm: true, llm_key_id: keys[provider], prompt: 'How many kilos?' });
      expect({ status: answer.status, error: answer.body.error }).toEqual({ status: 500, error: 'E008: LLM processing failed: provider answer larger than 2 MB' });
      // Read once, not retried (the same endpoint would send it again), and the socket was closed.
      expect(fake.requests.map((r) => r.answeredWith)).toEqual(['endless']);
      expect(fake.requests[0].bytesSent).toBeLessThan(64 * 1024 * 1024);
      expect(alive(worker)).toBe(true);
      const rssAfter = residentMb(worker.child.pid!);
      reportFigures(`endless ${provider} body: worker resident ${Math.round(rssBefore)} MB before, ${Math.round(rssAfter)} MB after; provider wrote ${Math.round(fake.requests[0].bytesSent! / 1024 / 1024)} MB before the worker hung up\n`);
      expect(rssAfter - rssBefore).toBeLessThan(200);

      fake.reset();
      const next = await scrape({ url: `${site.url}/article`, use_llm: true, llm_key_id: keys[provider], prompt: 'How many kilos?' });
      expect(next.status).toBe(200);
      expect(next.body.llm_output).toEqual({ answer: 'stand-in answer' });
    }, 60_000);
  }

  it('the worker process is the same one throughout (never restarted)', async () => {
    const plain = await scrape({ url: `${site.url}/article` });
    expect(plain.status).toBe(200);
    expect(plain.body.text_content).toContain(sentence);
    expect(await waitFor(() => alive(worker), (a) => a, 1_000)).toBe(true);
    expect(worker.output()).not.toMatch(/FATAL|heap out of memory|Check failed/);
  }, 30_000);
});
