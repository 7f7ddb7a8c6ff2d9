import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpHttpSessions } from '../src/http-sessions.js';

/**
 * Session bookkeeping of the Streamable HTTP transport, on a plain node http server with a small
 * MCP server (no Gleaner): the owner's and the account's limits, idle expiry, and sessions of one
 * owner out of reach of another. The gateway's /mcp over real Gleaner is mcp-server.test.ts.
 */
const IDLE_MS = 1_500;
let sessions: McpHttpSessions<{ id: string; accountId: string }>;
let server: http.Server;
let url: string;
const created: string[] = [];

beforeAll(async () => {
  sessions = new McpHttpSessions({
    createServer: (owner) => {
      created.push(owner.id);
      const mcp = new McpServer({ name: 'sessions-test', version: '1.0.0' });
      mcp.registerTool('whoami', { description: 'The session owner.' }, () => ({ content: [{ type: 'text', text: owner.id }] }));
      return mcp;
    },
    idleMs: IDLE_MS,
    maxPerOwner: 2,
    maxPerAccount: 3,
  });
  server = http.createServer(async (req, res) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const owner = String(req.headers['x-owner']);
    await sessions.handle(req, res, raw ? JSON.parse(raw) : undefined, { id: owner, accountId: String(req.headers['x-account'] ?? owner) });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
});

afterAll(async () => {
  await sessions.closeAll();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function connect(owner: string, account = owner): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: owner, version: '1' });
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { 'x-owner': owner, 'x-account': account } } });
  await client.connect(transport);
  return { client, transport };
}

const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
const headers = (owner: string, session?: string) => ({ 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-owner': owner, 'mcp-protocol-version': '2025-06-18', ...(session ? { 'mcp-session-id': session } : {}) });
const listTools = (owner: string, session: string) => fetch(url, { method: 'POST', headers: headers(owner, session), body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) });

describe('McpHttpSessions', () => {
  it("serves each session with its owner's server", async () => {
    const { client } = await connect('alice');
    const result = await client.callTool({ name: 'whoami', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'alice' }]);
    await client.close();
  });

  it('closes the least recently used session of an owner past the limit, not the sessions of others', async () => {
    const a1 = await connect('carol');
    const a2 = await connect('carol');
    const other = await connect('dave');
    await a2.client.listTools();
    const a3 = await connect('carol');
    // a1 was used least recently: closed. A closed session answers 404 saying why, which the SDK raises.
    await expect(a1.client.listTools()).rejects.toThrow(
      'Session ended: this API key opened more than 2 MCP sessions (MCP_SESSIONS_PER_KEY), and this was its least recently used: start a new session with initialize',
    );
    // Only its owner is told why: to another key the id names nothing.
    expect(await (await listTools('dave', a1.transport.sessionId!)).json()).toMatchObject({ error: { message: 'Session not found: start a new session with initialize' } });
    await expect(a2.client.listTools()).resolves.toMatchObject({ tools: [{ name: 'whoami' }] });
    await expect(a3.client.listTools()).resolves.toMatchObject({ tools: [{ name: 'whoami' }] });
    await expect(other.client.listTools()).resolves.toMatchObject({ tools: [{ name: 'whoami' }] });
    for (const c of [a1, a2, a3, other]) await c.client.close();
  });

  it("closes the account's least recently used session past the account's limit, whichever of its owners holds it", async () => {
    // Two keys of one account: 2 + 1 sessions fill its 3; a fourth closes the account's oldest (hank's).
    const h1 = await connect('hank', 'acme');
    const h2 = await connect('hank', 'acme');
    const i1 = await connect('ivy', 'acme');
    const elsewhere = await connect('jack', 'globex');
    await h2.client.listTools();
    await i1.client.listTools();
    const i2 = await connect('ivy', 'acme');
    await expect(h1.client.listTools()).rejects.toThrow(/MCP_SESSIONS_PER_ACCOUNT/);
    for (const open of [h2, i1, i2, elsewhere]) await expect(open.client.listTools()).resolves.toMatchObject({ tools: [{ name: 'whoami' }] });
    // Over her own limit too, ivy's third closes her own oldest, and then the account is within its limit.
    const i3 = await connect('ivy', 'acme');
    await expect(i1.client.listTools()).rejects.toThrow(/MCP_SESSIONS_PER_KEY/);
    for (const open of [h2, i2, i3]) await expect(open.client.listTools()).resolves.toMatchObject({ tools: [{ name: 'whoami' }] });
    for (const c of [h1, h2, i1, i2, i3, elsewhere]) await c.client.close();
  });

  it('closes a session idle for idleMs, and never lends a session to another owner', async () => {
    const opened = await fetch(url, { method: 'POST', headers: headers('erin'), body: JSON.stringify(initialize) });
    const session = opened.headers.get('mcp-session-id')!;
    await opened.text();
    expect((await listTools('frank', session)).status).toBe(404);
    const own = await listTools('erin', session);
    expect(own.status).toBe(200);
    await own.text();
    await new Promise((r) => setTimeout(r, IDLE_MS * 2.5));
    const expired = await listTools('erin', session);
    expect(expired.status).toBe(404);
    expect(await expired.json()).toEqual({ jsonrpc: '2.0', error: { code: -32001, message: 'Session ended after 1.5 s without a request (MCP_SESSION_IDLE_MS): start a new session with initialize' }, id: null });
  });

  it('asks for initialize when a request names no session', async () => {
    const res = await fetch(url, { method: 'POST', headers: headers('gina'), body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: -32000, message: expect.stringMatching(/send initialize first/) } });
  });
});
