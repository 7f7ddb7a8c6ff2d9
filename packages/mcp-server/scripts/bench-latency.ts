/**
 * What the MCP layer adds to a scrape (prints figures; not a test). One small local page is
 * scraped N times each way, the ways interleaved so machine load weighs on all alike:
 *   api    POST /web-scrapper/ with @gleaner/client (the baseline: gateway, queue, worker, extraction)
 *   http   tools/call scrape on the gateway's /mcp (one session), which makes that same API call
 *   stdio  tools/call scrape on the built gleaner-mcp bin (one process), which makes it too
 * Gateway and scraper-worker run as processes on Redis (BENCH_REDIS_URL, default
 * redis://127.0.0.1:6379/11, own key prefix deleted at the end). Run from the repository root,
 * after `pnpm --filter @gleaner/mcp-server build`:
 *   node --import tsx packages/mcp-server/scripts/bench-latency.ts      env: BENCH_ROUNDS (40)
 */
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { GleanerClient } from '@gleaner/client';
import { createKeyWithCli, gleanerCli } from '../../../tests/support/cli.js';
import { serviceEnv } from '../../../tests/support/env.js';
import { startGatewayProcess } from '../../../tests/support/gateway-process.js';
import { html, startPageServer } from '../../../tests/support/page-server.js';
import { REPO_ROOT, startService } from '../../../tests/support/processes.js';
import { deleteKeysWithPrefix } from '../../../tests/support/redis.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40);
const prefix = `bench-mcp-${Date.now()}`;
const env = { ...serviceEnv(prefix), NODE_ENV: 'production', ...(process.env.BENCH_REDIS_URL ? { REDIS_URL: process.env.BENCH_REDIS_URL } : {}) };
const paragraphs = Array.from({ length: 30 }, (_, i) => `<p>Paragraph ${i + 1} of the benchmark page, long enough to be an article.</p>`).join('');

const pages = await startPageServer({ '/page': html(`<article><h1>Benchmark</h1>${paragraphs}</article>`, '<title>Benchmark</title>') });
const gateway = await startGatewayProcess(env);
const worker = startService('scraper-worker', env);
try {
  await worker.waitFor(/ready/);
  const apiKey = await createKeyWithCli('bench', env);
  await gleanerCli(['accounts', 'set-rate-limit', 'bench', '1000000'], env);
  const url = `${pages.url}/page`;
  const api = new GleanerClient({ baseUrl: gateway.url, apiKey });
  const http = new Client({ name: 'bench', version: '1' });
  await http.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), { requestInit: { headers: { 'x-api-key': apiKey } } }));
  const stdio = new Client({ name: 'bench', version: '1' });
  await stdio.connect(new StdioClientTransport({ command: process.execPath, args: [path.join(REPO_ROOT, 'packages/mcp-server/dist/cli.js')], env: { GLEANER_URL: gateway.url, GLEANER_API_KEY: apiKey } }));

  const ways: Record<string, () => Promise<unknown>> = {
    api: () => api.scrapeAndWait({ url, output_type: 'markdown' }),
    http: () => http.callTool({ name: 'scrape', arguments: { url } }),
    stdio: () => stdio.callTool({ name: 'scrape', arguments: { url } }),
  };
  const times: Record<string, number[]> = { api: [], http: [], stdio: [] };
  for (const way of Object.keys(ways)) await ways[way](); // warm-up: extraction thread, connections
  for (let round = 0; round < ROUNDS; round++) {
    for (const way of Object.keys(ways)) {
      const started = performance.now();
      const result = (await ways[way]()) as { isError?: boolean };
      if (result.isError) throw new Error(`${way}: ${JSON.stringify(result)}`);
      times[way].push(performance.now() - started);
    }
  }
  const q = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(p * values.length))];
  const base = q(times.api, 0.5);
  console.log(`scrape of one local page, ${ROUNDS} rounds interleaved (node ${process.version})`);
  for (const [way, values] of Object.entries(times)) {
    console.log(`${way.padEnd(6)} p50 ${q(values, 0.5).toFixed(1).padStart(7)} ms  p90 ${q(values, 0.9).toFixed(1).padStart(7)} ms  (p50 +${(q(values, 0.5) - base).toFixed(1)} ms over api)`);
  }
  await Promise.all([http.close(), stdio.close()]);
} finally {
  await Promise.all([gateway.process.kill(), worker.kill()]);
  await pages.close();
  await deleteKeysWithPrefix(prefix, env.REDIS_URL);
}
