import { existsSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { createKeyWithCli } from './support/cli.js';
import { serviceEnv } from './support/env.js';
import { startPageServer } from './support/page-server.js';
import { startProcess, type ServiceProcess } from './support/processes.js';
import { freePort } from './support/redis-server.js';
import { deleteKeysWithPrefix, testPrefix } from './support/redis.js';

/**
 * The whole system through `pnpm start`, as the README's quick start runs it: in production mode
 * and without GLEANER_SECRET, so the processes share a secret generated into a file.
 */
const prefix = testPrefix('start');
const secretFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'gleaner-start-')), 'secret');
const { GLEANER_SECRET: _testSecret, ...env } = serviceEnv(prefix, { NODE_ENV: 'production', GLEANER_SECRET_FILE: secretFile });
let system: ServiceProcess;
let pages: Awaited<ReturnType<typeof startPageServer>>;
let baseUrl: string;
let apiKey: string;

beforeAll(async () => {
  pages = await startPageServer({
    '/notes.txt': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('Meeting notes:\nThe budget was approved.\fSecond page of notes.');
    },
    '/page': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html><head><title>Start page</title></head><body><p>Everything runs in one process here.</p><a href="https://example.org/x">out</a></body></html>');
    },
  });
  const port = await freePort();
  system = startProcess('pnpm', ['start'], { ...env, PORT: String(port) });
  const line = await system.waitFor(/listening on http:\/\/[\d.]+:\d+/, 90_000);
  expect(line).toContain(String(port));
  expect(system.output()).toContain('GLEANER_SECRET is not set');
  expect(existsSync(secretFile)).toBe(true);
  baseUrl = `http://127.0.0.1:${port}`;
  apiKey = await createKeyWithCli('start-account', env);
}, 120_000);

afterAll(async () => {
  await system?.kill();
  await pages?.close();
  await deleteKeysWithPrefix(prefix);
});

it('scrapes and parses through `pnpm start`', async () => {
  const scrape = await fetch(`${baseUrl}/web-scrapper/`, { method: 'POST', headers: { 'x-api-key': apiKey }, body: JSON.stringify({ url: `${pages.url}/page`, output_type: 'markdown' }) });
  expect(scrape.status).toBe(200);
  const s = (await scrape.json()) as { text_content: string; markdown_content: string; links: Array<{ url: string; type: string }> };
  expect(s.text_content).toContain('Everything runs in one process here.');
  expect(s.markdown_content).toContain('Everything runs in one process here.');
  expect(s.links).toEqual(expect.arrayContaining([expect.objectContaining({ url: 'https://example.org/x', type: 'external' })]));

  const parse = await fetch(`${baseUrl}/documents/parse`, { method: 'POST', headers: { 'x-api-key': apiKey }, body: JSON.stringify({ url: `${pages.url}/notes.txt`, type: 'txt' }) });
  expect(parse.status).toBe(200);
  const p = (await parse.json()) as { status: string; data: string };
  expect(p.status).toBe('COMPLETED');
  expect(p.data).toContain('The budget was approved.');
  expect(p.data).toContain('\n\n=== Page Break ===\n\n');
}, 60_000);

it('stops cleanly on SIGTERM', async () => {
  await system.kill('SIGTERM');
  expect(system.child.exitCode ?? system.child.signalCode).not.toBeNull();
});
