import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startFakeAnthropic, startFakeOpenAICompatible, type AnthropicScript, type FakeProvider, type OpenAIScript } from './fakes/llm-providers.js';
import { serviceEnv } from './support/env.js';
import { startGatewayProcess, type GatewayProcess } from './support/gateway-process.js';
import { html, startPageServer } from './support/page-server.js';
import type { ServiceProcess } from './support/processes.js';
import { deleteKeysWithPrefix, testPrefix } from './support/redis.js';
import { SIMULATED_INTERNET_PRELOAD, simulatedInternetEnv, startServiceOnSimulatedInternet, type SimulatedInternet } from './support/simulated-internet.js';
import { createAccountWithKey, openTestStores, type TestStores } from './support/test-stores.js';

/**
 * Language-model provider calls are guarded when they are made, not only when a key is
 * registered. Private networks are NOT allowed; every process gets its own view of a simulated
 * internet (tests/support/simulated-internet-preload.mjs, as in tests/ssrf.test.ts): at
 * registration the gateway sees the providers' names as public, and when the scraper worker calls
 * them one name has been re-pointed to loopback, where the stand-ins actually listen.
 */
const prefix = testPrefix('llm-guard');
const SECRET = 'llm-guard-secret-0123456789abcdef';
const PUBLIC_IP = '93.184.215.14';
const ANTHROPIC_KEY = 'sk-ant-guard-test-0123456789';
const OPENAI_KEY = 'sk-oai-guard-test-0123456789';

const gatewayView: SimulatedInternet = {
  hosts: { 'public.gleaner-test': [PUBLIC_IP], 'llm-public.gleaner-test': [PUBLIC_IP], 'llm-rebind.gleaner-test': [PUBLIC_IP] },
};
/** When the worker connects: the rebinding name answers loopback; the public address reaches our local servers. */
const workerView: SimulatedInternet = {
  hosts: { 'public.gleaner-test': [PUBLIC_IP], 'llm-public.gleaner-test': [PUBLIC_IP], 'llm-rebind.gleaner-test': ['127.0.0.1'] },
  nat: { [PUBLIC_IP]: '127.0.0.1' },
};

const env = serviceEnv(prefix, { GLEANER_SECRET: SECRET, GLEANER_ALLOW_PRIVATE_NETWORKS: 'false', DEFAULT_RATE_LIMIT_PER_MINUTE: '100000', SCRAPER_CONCURRENCY: '2' });

let site: Awaited<ReturnType<typeof startPageServer>>;
let anthropic: FakeProvider<AnthropicScript>;
let openai: FakeProvider<OpenAIScript>;
let gateway: GatewayProcess;
let worker: ServiceProcess;
let test: TestStores;
let apiKey: string;

beforeAll(async () => {
  site = await startPageServer({ '/page': html('<article><h1>Harvest notes</h1><p>Volunteers gleaned 900 kilos of potatoes.</p></article>', '<title>Harvest notes</title>') });
  anthropic = await startFakeAnthropic({ apiKeys: [ANTHROPIC_KEY] });
  openai = await startFakeOpenAICompatible({ apiKeys: [OPENAI_KEY] });
  test = openTestStores(prefix, SECRET);
  apiKey = (await createAccountWithKey(test.stores, 'guarded')).apiKey;
  worker = startServiceOnSimulatedInternet('scraper-worker', env, workerView);
  gateway = await startGatewayProcess({ ...env, ...simulatedInternetEnv(gatewayView) }, [SIMULATED_INTERNET_PRELOAD]);
  await worker.waitFor(/ready/);
}, 120_000);

afterAll(async () => {
  await Promise.all([gateway?.process.kill(), worker?.kill()]);
  await Promise.all([site?.close(), anthropic?.close(), openai?.close()]);
  await test?.close();
  await deleteKeysWithPrefix(prefix);
});

async function post(pathname: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${gateway.url}${pathname}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const port = (url: string) => new URL(url).port;

async function addKey(body: Record<string, unknown>): Promise<string> {
  const res = await post('/account/llm-keys', body);
  expect(res.status).toBe(201);
  return res.body.id as string;
}

const scrape = (llmKeyId: string) => post('/web-scrapper/', { url: `http://public.gleaner-test:${port(site.url)}/page`, use_llm: true, prompt: 'How many kilos?', llm_key_id: llmKeyId });

describe('provider connections pass the address guard when they are made', () => {
  it('a base URL that resolves publicly reaches the provider (control), with either provider', async () => {
    const a = await addKey({ provider: 'anthropic', key: ANTHROPIC_KEY, base_url: `http://llm-public.gleaner-test:${port(anthropic.baseUrl)}`, model: 'claude-test' });
    const o = await addKey({ provider: 'openai-compatible', key: OPENAI_KEY, base_url: `http://llm-public.gleaner-test:${port(openai.baseUrl)}/v1`, model: 'gpt-test' });
    anthropic.enqueue({ output: { kilos: 900 } });
    openai.enqueue({ output: { kilos: 900 } });
    for (const id of [a, o]) {
      const res = await scrape(id);
      expect({ status: res.status, llm_output: res.body.llm_output }).toEqual({ status: 200, llm_output: { kilos: 900 } });
    }
    expect(anthropic.requests).toHaveLength(1);
    expect(openai.requests).toHaveLength(1);
  }, 60_000);

  it('a base URL whose name now resolves to loopback is refused at connection time: E008, the provider never reached', async () => {
    const a = await addKey({ provider: 'anthropic', key: ANTHROPIC_KEY, base_url: `http://llm-rebind.gleaner-test:${port(anthropic.baseUrl)}`, model: 'claude-test' });
    const o = await addKey({ provider: 'openai-compatible', key: OPENAI_KEY, base_url: `http://llm-rebind.gleaner-test:${port(openai.baseUrl)}/v1`, model: 'gpt-test' });
    const before = { anthropic: anthropic.requests.length, openai: openai.requests.length };
    for (const id of [a, o]) {
      const started = Date.now();
      const res = await scrape(id);
      expect(res.status).toBe(500);
      expect(res.body).toMatchObject({ status: 'failed', error: 'E008: LLM processing failed: provider base URL resolves to a private or reserved address, which this deployment does not allow' });
      // Refused once, not retried as a connection error (the SDK would back off for seconds).
      expect(Date.now() - started).toBeLessThan(5_000);
    }
    expect({ anthropic: anthropic.requests.length, openai: openai.requests.length }).toEqual(before);
  }, 60_000);
});
