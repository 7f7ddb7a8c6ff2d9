import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { chromium, type Browser, type Page } from 'playwright-core';
import { openApiDocument } from '../services/gateway/src/openapi/document.js';
import { HTTP_METHODS } from '../services/gateway/src/openapi/openapi-types.js';
import { GatewayHarness } from './support/gateway.js';
import { deleteKeysWithPrefix, testPrefix } from './support/redis.js';

/** `/docs` as a person sees it: Debian's headless Chromium, offline, under the gateway's real CSP. */
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const prefix = testPrefix('docs-page');
let h: GatewayHarness;
let browser: Browser;
let page: Page;
const foreignRequests: string[] = [];
const consoleProblems: string[] = [];

beforeAll(async () => {
  h = await GatewayHarness.start(prefix);
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  // Nothing may be fetched from anywhere but the gateway (no CDN); record and refuse any attempt.
  await page.route('**/*', (route) => {
    if (new URL(route.request().url()).origin === new URL(h.url).origin) return route.continue();
    foreignRequests.push(route.request().url());
    return route.abort();
  });
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().includes('favicon')) consoleProblems.push(message.text());
  });
  page.on('requestfailed', (request) => {
    if (!request.url().endsWith('/favicon.ico')) consoleProblems.push(`request failed: ${request.url()}`);
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await h?.stop();
  await deleteKeysWithPrefix(prefix);
});

it('renders every documented endpoint and the request examples', async () => {
  const response = await page.goto(`${h.url}/docs`, { waitUntil: 'load' });
  expect(response?.status()).toBe(200);
  expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");

  // The stylesheet loaded despite the CSP: the method badges got their colour.
  const badge = await page.locator('section.op .method').first().evaluate((el) => getComputedStyle(el).backgroundColor);
  expect(badge).not.toBe('rgba(0, 0, 0, 0)');

  const endpoints = Object.entries(openApiDocument.paths).flatMap(([path, item]) => HTTP_METHODS.filter((m) => item[m]).map((m) => ({ method: m.toUpperCase(), path })));
  expect(endpoints.length).toBeGreaterThan(20);
  for (const { method, path } of endpoints) {
    const heading = page.locator(`section.op[data-method="${method}"][data-path="${path}"] h3`);
    await expect(heading.isVisible()).resolves.toBe(true);
    const text = (await heading.innerText()).replace(/\s+/g, ' ');
    expect(text).toContain(`${method} ${path}`);
  }

  // The scraper submit's first example, pretty-printed and on screen.
  const example = openApiDocument.paths['/web-scrapper/'].post!.requestBody!.content['application/json'].examples!;
  const pretty = JSON.stringify(Object.values(example)[0].value, null, 2);
  const block = page.locator('section.op[data-method="POST"][data-path="/web-scrapper/"] pre.example').first();
  await block.scrollIntoViewIfNeeded();
  await expect(block.isVisible()).resolves.toBe(true);
  expect(await block.innerText()).toBe(pretty);

  // Responses are listed with their statuses.
  const responses = await page.locator('section.op[data-method="GET"][data-path="/documents/status/{requestId}"] td.status').allInnerTexts();
  expect(responses).toEqual(Object.keys(openApiDocument.paths['/documents/status/{requestId}'].get!.responses));

  expect(foreignRequests).toEqual([]);
  expect(consoleProblems).toEqual([]);
});
