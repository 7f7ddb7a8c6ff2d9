import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { serviceEnv } from '../../../tests/support/env.js';
import { startGatewayProcess, type GatewayProcess } from '../../../tests/support/gateway-process.js';
import { html, startPageServer } from '../../../tests/support/page-server.js';
import { startService, type ServiceProcess } from '../../../tests/support/processes.js';
import { deleteKeysWithPrefix, testPrefix } from '../../../tests/support/redis.js';
import { createAccountWithKey, openTestStores, type TestStores } from '../../../tests/support/test-stores.js';

/**
 * An MCP session over Streamable HTTP is not tied to the gateway that opened it (issue 39): its
 * requests alternate between two gateway processes, with no sticky routing, and every one is
 * served; a tool call on the gateway that did not open the session runs and answers; the DELETE
 * that ends it on one gateway ends it on the other. Sessions are recorded in Redis
 * (McpSessionDirectory); a gateway resumes one another opened.
 */
const prefix = testPrefix('mcp-gateways');
const env = serviceEnv(prefix);
let gateways: GatewayProcess[] = [];
let worker: ServiceProcess;
let pages: Awaited<ReturnType<typeof startPageServer>>;
let test: TestStores;
let apiKey: string;

beforeAll(async () => {
  pages = await startPageServer({ '/article': html(`<article><h1>Across gateways</h1><p>${'A session that any gateway serves. '.repeat(8)}</p></article>`, '<title>Across</title>') });
  worker = startService('scraper-worker', env);
  gateways = await Promise.all([startGatewayProcess(env), startGatewayProcess(env), worker.waitFor(/ready/, 90_000)]).then((all) => all.slice(0, 2) as GatewayProcess[]);
  test = openTestStores(prefix, env.GLEANER_SECRET);
  apiKey = (await createAccountWithKey(test.stores, 'mcp-across', { ratePerMinute: 10_000 })).apiKey;
}, 120_000);

afterAll(async () => {
  await Promise.all([...gateways.map((g) => g.process.kill()), worker?.kill()]);
  await pages?.close();
  await test?.close();
  await deleteKeysWithPrefix(prefix);
});

it('serves one session from either gateway, request after request, and ends it on both', async () => {
  const served: number[] = [];
  let next = 0;
  // Each request of the session goes to the other gateway than the one before.
  const alternate: typeof fetch = (input, init) => {
    const which = next++ % 2;
    served.push(which);
    const url = new URL(String(input instanceof Request ? input.url : input));
    url.port = String(gateways[which].port);
    return fetch(url, init);
  };
  const client = new Client({ name: 'across-gateways', version: '1' });
  const transport = new StreamableHTTPClientTransport(new URL(`${gateways[0].url}/mcp`), { fetch: alternate, requestInit: { headers: { 'x-api-key': apiKey } } });
  await client.connect(transport);
  const sessionId = transport.sessionId!;
  const tools = await client.listTools();
  expect(tools.tools.map((t) => t.name)).toContain('scrape');
  const scraped = (await client.callTool({ name: 'scrape', arguments: { url: `${pages.url}/article` } })) as CallToolResult;
  expect(scraped.isError).toBeFalsy();
  expect(JSON.stringify(scraped.content)).toContain('A session that any gateway serves.');
  await client.listTools();
  expect(new Set(served)).toEqual(new Set([0, 1]));

  // Ended by its client on one gateway: the other no longer serves it either.
  await transport.terminateSession();
  const after = await Promise.all(
    gateways.map((g) =>
      fetch(`${g.url}/mcp`, {
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
      }).then((r) => r.status),
    ),
  );
  expect(after).toEqual([404, 404]);
  await client.close();
}, 60_000);
