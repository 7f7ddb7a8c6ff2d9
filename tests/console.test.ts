import { mkdirSync } from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import AxeBuilder from '@axe-core/playwright';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { serviceEnv } from './support/env.js';
import { startGatewayProcess, type GatewayProcess } from './support/gateway-process.js';
import { html, startPageServer } from './support/page-server.js';
import { REPO_ROOT, startService, type ServiceProcess } from './support/processes.js';
import { deleteKeysWithPrefix, testPrefix } from './support/redis.js';
import { createAccountWithKey, openTestStores, type CreatedAccount, type TestStores } from './support/test-stores.js';

/**
 * The account console as a person uses it: Debian's headless Chromium against the gateway and a
 * scraper worker as real processes, pages from a local server. With GLEANER_CONSOLE_SCREENSHOTS
 * set to a folder (docs/console), it also saves a screenshot of each section there.
 */
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const SCREENSHOTS = process.env.GLEANER_CONSOLE_SCREENSHOTS ? path.resolve(REPO_ROOT, process.env.GLEANER_CONSOLE_SCREENSHOTS) : null;

const ARTICLE_SENTENCE = 'Tidal mills ground grain twice a day, when the ebb turned their wheels.';
/** Markup that would run if the console ever put scraped text or a title into the DOM as HTML. */
const TITLE_ATTACK = '<img src=x onerror="window.__consolePwned = \'title\'">Evil title';
const TEXT_ATTACK = '<script>window.__consolePwned = "text"</script><img src=x onerror="window.__consolePwned = \'img\'">';
/** Pages of the crawled site besides its home: more than the 25 results Requests shows at once. */
const SITE_PAGES = 30;

const prefix = testPrefix('console');
const env = serviceEnv(prefix, { LOG_LEVEL: 'error' });
let gateway: GatewayProcess;
let worker: ServiceProcess;
let dispatcher: ServiceProcess;
let test: TestStores;
let site: Awaited<ReturnType<typeof startPageServer>>;
let owner: CreatedAccount;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const consoleProblems: string[] = [];
const foreignRequests: string[] = [];

beforeAll(async () => {
  site = await startPageServer({
    '/article': html(`<article><h1>Tidal mills</h1><p>${ARTICLE_SENTENCE}</p><p>Millers kept the pond full at high water and let it out through the wheel as the tide fell.</p></article>`, '<title>Tidal mills</title>'),
    // Both arrive at the console as text: the title in meta.title, the escaped markup in the text.
    '/evil': html(
      `<article><h1>Evil page</h1><p>Before ${TEXT_ATTACK.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')} after, and enough words to be the main content of this page.</p></article>`,
      `<title>${TITLE_ATTACK.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</title>`,
    ),
    // Webhook receivers: one accepts, one refuses for good (a 4xx other than 429 is not retried).
    '/hook': (_q, s) => s.writeHead(200).end('ok'),
    '/hook-gone': (_q, s) => s.writeHead(410).end('gone'),
    // A site to crawl: more pages than a page of results in Requests; and a slow one, caught running.
    '/site/': html(`<h1>Mill guide</h1>${Array.from({ length: SITE_PAGES }, (_, n) => `<a href="/site/mill-${n}">Mill ${n}</a>`).join(' ')}`, '<title>Mill guide</title>'),
    ...Object.fromEntries(Array.from({ length: SITE_PAGES }, (_, n) => [`/site/mill-${n}`, html(`<article><h1>Mill ${n}</h1><p>Mill ${n} ground grain for the village on every tide, and its wheel still turns for visitors.</p></article>`, `<title>Mill ${n}</title>`)])),
    '/slow-site/': html(`<h1>Slow mills</h1>${Array.from({ length: 10 }, (_, n) => `<a href="/slow-site/${n}">Slow ${n}</a>`).join(' ')}`, '<title>Slow mills</title>'),
    ...Object.fromEntries(
      Array.from({ length: 10 }, (_, n) => [
        `/slow-site/${n}`,
        (q: http.IncomingMessage, s: http.ServerResponse) => void setTimeout(() => html(`<article><h1>Slow ${n}</h1><p>${ARTICLE_SENTENCE}</p></article>`, `<title>Slow ${n}</title>`)(q, s), 3_000),
      ]),
    ),
  });
  worker = startService('scraper-worker', { ...env, SCRAPER_CONCURRENCY: '2', SCRAPER_EXTRACT_THREADS: '1' });
  dispatcher = startService('webhook-dispatcher', env);
  [gateway] = await Promise.all([startGatewayProcess(env), worker.waitFor(/ready/), dispatcher.waitFor(/ready/)]);
  test = openTestStores(prefix, env.GLEANER_SECRET);
  owner = await createAccountWithKey(test.stores, 'console-owner', { ratePerMinute: 10_000 });
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  await page.route('**/*', (route) => {
    if (new URL(route.request().url()).origin === new URL(gateway.url).origin) return route.continue();
    foreignRequests.push(route.request().url());
    return route.abort();
  });
  // Chromium logs every 4xx answer; the tests provoke 400 (a refused subscription), 401 and 403.
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.text().includes('favicon') && !/status of 40[013]\b/.test(m.text())) consoleProblems.push(m.text());
  });
  page.on('pageerror', (e) => consoleProblems.push(`page error: ${e.message}`));
  page.on('dialog', (d) => void d.accept());
  if (SCREENSHOTS) mkdirSync(SCREENSHOTS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await Promise.all([worker?.kill(), dispatcher?.kill(), gateway?.process.kill()]);
  await site?.close();
  await test?.close();
  await deleteKeysWithPrefix(prefix);
});

async function seriousViolations(section: string): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${section}: ${v.id} (${v.impact}) ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** The section freshly loaded (a hash change alone would keep the page's state). */
async function open(section: string): Promise<void> {
  const target = `${gateway.url}/console#/${section}`;
  if (page.url() === target) await page.reload();
  else await page.goto(target);
  await page.locator(`main[data-section="${section.split('/')[0]}"]`).waitFor();
}

async function shoot(name: string): Promise<void> {
  if (SCREENSHOTS) await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

const api = (key: string, method: string, route: string, body?: object) =>
  fetch(gateway.url + route, { method, headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined });

describe('the account console', () => {
  it('is served under a strict CSP, and refuses a wrong key or a key without the account scope with a clear message', async () => {
    const response = await page.goto(`${gateway.url}/console`);
    expect(response?.status()).toBe(200);
    const csp = response?.headers()['content-security-policy'] ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("require-trusted-types-for 'script'");
    // No inline script in the page.
    expect(await page.locator('script:not([src])').count()).toBe(0);

    await page.getByLabel('API key with the account scope').fill('glk_0000000000000000_not-a-real-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('This key was refused: it is unknown or has been revoked');

    const scrapeOnly = await test.stores.accounts.createApiKey(owner.accountId, ['scrape']);
    await page.getByLabel('API key with the account scope').fill(scrapeOnly.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('has only the scrape scope; the console needs a key with the account scope').waitFor();
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    expect(await seriousViolations('sign-in')).toEqual([]);
    await shoot('sign-in');

    await page.getByLabel('API key with the account scope').fill(owner.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByTestId('account-name').textContent()).resolves.toBe('console-owner');
    expect(await page.evaluate(() => Object.values(sessionStorage))).toEqual([owner.apiKey]);
    expect(await page.context().cookies()).toEqual([]);
  });

  it('creates a scrape key that works through the API, shows its request with its text and in the usage chart, and revokes it (401)', async () => {
    await open('keys');
    await page.getByLabel('Label').fill('crawler');
    // `scrape` is ticked by default; only it.
    expect(await page.getByRole('checkbox', { name: 'scrape' }).isChecked()).toBe(true);
    await page.getByRole('button', { name: 'Create key' }).click();
    const newKey = await page.getByLabel('New key').inputValue();
    expect(newKey).toMatch(/^glk_/);
    const row = page.locator('tr', { hasText: 'crawler' });
    await expect(row.textContent()).resolves.toContain('scrape');
    expect(await seriousViolations('keys')).toEqual([]);

    const scraped = await api(newKey, 'POST', '/web-scrapper/', { url: `${site.url}/article` });
    expect(scraped.status).toBe(200);
    const { request_id: requestId } = (await scraped.json()) as { request_id: string };

    await open('requests');
    const requestRow = page.locator(`tr[data-request-id="${requestId}"]`);
    await expect(requestRow.textContent()).resolves.toContain('completed');
    expect(await seriousViolations('requests')).toEqual([]);
    await shoot('requests');
    await requestRow.getByRole('link').click();
    await page.getByTestId('result-view').waitFor();
    await expect(page.getByLabel('Extracted text').textContent()).resolves.toContain(ARTICLE_SENTENCE);
    await page.getByRole('button', { name: 'JSON' }).click();
    await expect(page.getByLabel('JSON response').textContent()).resolves.toContain(`"request_id": "${requestId}"`);
    expect(await seriousViolations('request detail')).toEqual([]);
    await shoot('request-detail');

    await open('overview');
    const today = new Date().toISOString().slice(0, 10);
    const todaysScrapes = page.locator(`[data-chart="requests"] g[data-date="${today}"] rect[data-series="scrape"]`);
    await todaysScrapes.waitFor();
    expect(Number(await todaysScrapes.getAttribute('data-value'))).toBeGreaterThanOrEqual(1);
    await expect(page.locator('[data-stat="rate-limit"]').textContent()).resolves.toContain('10000 requests / minute');
    expect(await seriousViolations('overview')).toEqual([]);
    await shoot('overview');

    // Last use shows once the gateway has written it (at most a minute's precision).
    await open('keys');
    await expect(page.locator('tr', { hasText: 'crawler' }).locator('td').nth(4).textContent()).resolves.toMatch(/UTC/);
    await shoot('api-keys');
    await page.getByRole('button', { name: 'Revoke crawler' }).click();
    await page.locator('tr', { hasText: 'crawler' }).filter({ hasText: 'revoked' }).waitFor();
    const refused = await api(newKey, 'POST', '/web-scrapper/', { url: `${site.url}/article` });
    expect(refused.status).toBe(401);
  });

  it('adds and removes a language-model key without ever showing its secret', async () => {
    await open('llm-keys');
    await page.getByLabel('Secret key').fill('sk-console-test-secret-9876');
    await page.getByLabel('Label (optional)').fill('console test');
    await page.getByRole('button', { name: 'Add key' }).click();
    const row = page.locator('tr', { hasText: 'console test' });
    await expect(row.textContent()).resolves.toContain('••••9876');
    expect(await page.content()).not.toContain('sk-console-test-secret');
    expect(await seriousViolations('llm-keys')).toEqual([]);
    await shoot('llm-keys');
    await page.getByRole('button', { name: 'Remove console test' }).click();
    await row.waitFor({ state: 'detached' });
  });

  it('reveals the signing secret, and adds and removes a webhook subscription', async () => {
    await open('webhooks');
    await page.getByRole('button', { name: 'Reveal' }).click();
    await page.getByTestId('webhook-secret').filter({ hasText: /^whsec_/ }).waitFor();
    // A refused subscription shows the API's reason; the next action clears it.
    await page.getByLabel('Endpoint URL').fill('ftp://127.0.0.1:9/console-hook');
    await page.getByRole('button', { name: 'Add subscription' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/url/i);
    await page.getByLabel('Endpoint URL').fill('http://127.0.0.1:9/console-hook');
    await page.getByRole('checkbox', { name: 'scrape-v1' }).uncheck();
    await page.getByRole('button', { name: 'Add subscription' }).click();
    const item = page.locator('li', { hasText: 'http://127.0.0.1:9/console-hook' });
    await expect(item.textContent()).resolves.toContain('scrape, parse');
    expect(await page.getByRole('alert').count()).toBe(0);
    const listed = (await (await api(owner.apiKey, 'GET', '/account/webhooks')).json()) as { webhooks: Array<{ url: string; families: string[] }> };
    expect(listed.webhooks).toEqual([expect.objectContaining({ url: 'http://127.0.0.1:9/console-hook', families: ['scrape', 'parse'] })]);
    expect(await seriousViolations('webhooks')).toEqual([]);
    await page.getByRole('button', { name: 'Remove subscription http://127.0.0.1:9/console-hook' }).click();
    await item.waitFor({ state: 'detached' });
    expect(((await (await api(owner.apiKey, 'GET', '/account/webhooks')).json()) as { webhooks: unknown[] }).webhooks).toEqual([]);
  });

  it('scrapes a local page in the playground and shows the equivalent curl', async () => {
    await open('playground');
    await page.getByLabel(/Page URL/).fill(`${site.url}/article`);
    await page.getByLabel(/^Output/).selectOption('markdown');
    await expect(page.getByLabel('Equivalent curl command').textContent()).resolves.toContain(`"output_type":"markdown"`);
    const curl = await page.getByLabel('Equivalent curl command').textContent();
    expect(curl).toContain(`curl -s '${gateway.url}/web-scrapper/'`);
    expect(curl).toContain('x-api-key: $GLEANER_API_KEY');
    expect(curl).not.toContain(owner.apiKey);
    await page.getByRole('button', { name: 'Scrape', exact: true }).click();
    await expect(page.getByTestId('result-status').textContent()).resolves.toContain('HTTP 200');
    await expect(page.getByLabel('Extracted text').textContent()).resolves.toContain(ARTICLE_SENTENCE);
    await page.getByRole('button', { name: 'Markdown' }).click();
    await expect(page.getByLabel('Extracted markdown').textContent()).resolves.toContain('# Tidal mills');
    // The LLM options appear with use_llm.
    expect(await page.getByLabel(/^Prompt/).count()).toBe(0);
    await page.getByLabel(/Language-model extraction/).check();
    expect(await page.getByLabel(/^Prompt/).count()).toBe(1);
    await page.getByLabel(/Language-model extraction/).uncheck();
    expect(await seriousViolations('playground')).toEqual([]);
    await shoot('playground');

    // The parse form: by URL, its curl for /documents/parse.
    await page.getByRole('button', { name: 'Parse a document' }).click();
    await page.getByLabel(/Document URL/).fill(`${site.url}/notes.txt`);
    await page.getByLabel(/^Type/).selectOption('txt');
    await page.getByRole('radio', { name: 'From a URL' }).waitFor();
    await page.getByLabel('Equivalent curl command').filter({ hasText: '/documents/parse' }).waitFor();
    expect(await page.getByLabel('Equivalent curl command').textContent()).toContain(`-d '{"url":"${site.url}/notes.txt","type":"txt"}'`);
    expect(await seriousViolations('playground parse')).toEqual([]);
  });

  it('never runs a script found in a scraped page\'s text or title', async () => {
    await open('playground');
    await page.getByLabel(/Page URL/).fill(`${site.url}/evil`);
    await page.getByRole('button', { name: 'Scrape', exact: true }).click();
    await expect(page.getByTestId('result-status').textContent()).resolves.toContain('HTTP 200');
    const shown = await page.getByLabel('Extracted text').textContent();
    expect(shown).toContain(TEXT_ATTACK);
    await page.getByRole('button', { name: 'JSON' }).click();
    expect(await page.getByLabel('JSON response').textContent()).toContain('Evil title');
    const body = (await (await api(owner.apiKey, 'GET', '/account/requests?limit=1')).json()) as { requests: Array<{ request_id: string }> };
    await open(`requests/${body.requests[0].request_id}`);
    await expect(page.getByLabel('Extracted text').textContent()).resolves.toContain(TEXT_ATTACK);
    await page.getByRole('button', { name: 'JSON' }).click();
    await expect(page.getByLabel('JSON response').textContent()).resolves.toContain('<img src=x onerror=');
    // Nothing ran, and no element came from the page: the result is one text node in a <pre>.
    expect(await page.evaluate(() => (window as unknown as { __consolePwned?: string }).__consolePwned)).toBeUndefined();
    expect(await page.locator('[data-testid="result-view"] img, [data-testid="result-view"] script').count()).toBe(0);
    expect(await page.locator('img').count()).toBe(0);
  });

  it('shows recent webhook deliveries with their status, attempts and last error', async () => {
    const delivered = await api(owner.apiKey, 'POST', '/web-scrapper/', { url: `${site.url}/article`, webhook: `${site.url}/hook` });
    const refused = await api(owner.apiKey, 'POST', '/web-scrapper/', { url: `${site.url}/article`, webhook: `${site.url}/hook-gone` });
    expect([delivered.status, refused.status]).toEqual([200, 200]);
    const [deliveredId, refusedId] = [((await delivered.json()) as { request_id: string }).request_id, ((await refused.json()) as { request_id: string }).request_id];
    for (let i = 0; i < 100; i++) {
      const { deliveries } = (await (await api(owner.apiKey, 'GET', '/account/webhook-deliveries')).json()) as { deliveries: Array<{ status: string }> };
      if (deliveries.filter((d) => d.status !== 'pending').length >= 2) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await open('webhooks');
    const deliveredRow = page.locator('tr', { has: page.locator(`a[href="#/requests/${deliveredId}"]`) });
    const refusedRow = page.locator('tr', { has: page.locator(`a[href="#/requests/${refusedId}"]`) });
    await expect(deliveredRow.locator('td').nth(2).textContent()).resolves.toBe('delivered');
    await expect(deliveredRow.locator('td').nth(3).textContent()).resolves.toBe('1');
    await expect(refusedRow.locator('td').nth(2).textContent()).resolves.toBe('failed');
    await expect(refusedRow.locator('td').nth(4).textContent()).resolves.toMatch(/410/);
    expect(await seriousViolations('webhook deliveries')).toEqual([]);
    await shoot('webhooks');
  });

  it('starts a crawl in the playground and watches it to its end, its pages readable as markdown', async () => {
    await open('playground');
    await page.getByRole('button', { name: 'Crawl a site' }).click();
    await page.getByLabel(/Start URL/).fill(`${site.url}/site/`);
    await page.getByLabel(/Pages to read at most/).fill('50');
    await page.getByLabel(/Only paths matching/).fill('^/site/');
    await page.getByLabel(/^Output/).selectOption('markdown');
    await page.getByLabel('Equivalent curl command').filter({ hasText: '/web-scrapper/crawl' }).waitFor();
    expect(await page.getByLabel('Equivalent curl command').textContent()).toContain(`-d '{"url":"${site.url}/site/","limit":50,"include_paths":["^/site/"],"output_type":"markdown"}'`);
    await page.getByRole('button', { name: 'Start crawl' }).click();
    await page.getByTestId('crawl-status').filter({ hasText: 'completed' }).waitFor({ timeout: 30_000 });
    const watch = page.getByTestId('crawl-watch');
    await expect(watch.locator('[data-count="completed"]').textContent()).resolves.toBe(String(SITE_PAGES + 1));
    expect(await watch.locator('table[aria-label="Crawl results"] tbody tr').count()).toBe(SITE_PAGES + 1);
    await watch.locator(`tr[data-url="${site.url}/site/mill-7"]`).getByRole('button').click();
    await page.getByRole('button', { name: 'Markdown' }).click();
    await expect(page.getByLabel('Extracted markdown').textContent()).resolves.toContain('Mill 7 ground grain for the village');
    expect(await seriousViolations('playground crawl')).toEqual([]);
    await shoot('playground-crawl');
  });

  it('lists crawls and maps in Requests with their counts; a crawl\'s detail pages through its results, and cancels one that runs', async () => {
    const { requests } = (await (await api(owner.apiKey, 'GET', '/account/requests?limit=5')).json()) as { requests: Array<{ request_id: string; family: string }> };
    const crawlId = requests.find((r) => r.family === 'crawl')!.request_id;
    const mapped = (await (await api(owner.apiKey, 'POST', '/web-scrapper/map', { url: `${site.url}/site/`, include_paths: ['^/site/'], limit: 5 })).json()) as { request_id: string };
    await open('requests');
    const crawlRow = page.locator(`tr[data-request-id="${crawlId}"]`);
    await expect(crawlRow.getByTestId('request-progress').textContent()).resolves.toBe(`${SITE_PAGES + 1} read · 0 failed · 0 skipped`);
    await expect(page.locator(`tr[data-request-id="${mapped.request_id}"]`).getByTestId('request-progress').textContent()).resolves.toBe('5 URLs');
    await crawlRow.getByRole('link').click();
    const detail = page.getByTestId('site-job-detail');
    await detail.locator('tr[data-result="25"]').waitFor();
    expect(await detail.locator('table[aria-label="Crawl results"] tbody tr').count()).toBe(25);
    await page.getByRole('button', { name: 'Next results' }).click();
    await detail.locator('tr[data-result="26"]').waitFor();
    expect(await detail.locator('table[aria-label="Crawl results"] tbody tr').count()).toBe(SITE_PAGES + 1 - 25);
    expect(await page.getByRole('button', { name: 'Next results' }).count()).toBe(0);
    expect(await seriousViolations('crawl detail')).toEqual([]);
    await shoot('crawl-detail');

    await open(`requests/${mapped.request_id}`);
    await page.locator('table[aria-label="Map links"] tbody tr').nth(4).waitFor();

    // A crawl still running: cancelled from its detail, what it read kept.
    const started = (await (await api(owner.apiKey, 'POST', '/web-scrapper/crawl', { url: `${site.url}/slow-site/`, include_paths: ['^/slow-site/'], max_concurrency: 1 })).json()) as { request_id: string };
    await open(`requests/${started.request_id}`);
    await page.getByTestId('crawl-status').filter({ hasText: 'processing' }).waitFor();
    await page.getByRole('button', { name: 'Cancel crawl' }).click();
    await page.getByTestId('crawl-status').filter({ hasText: 'cancelled' }).waitFor({ timeout: 10_000 });
    await expect(page.getByTestId('crawl-counts').textContent()).resolves.toContain('cancelled by the caller');
    expect(((await (await api(owner.apiKey, 'GET', `/web-scrapper/crawl/${started.request_id}`)).json()) as { status: string }).status).toBe('cancelled');
  });

  it('works at phone width', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    for (const section of ['overview', 'keys', 'llm-keys', 'webhooks', 'requests', 'playground']) {
      await open(section);
      await page.waitForLoadState('networkidle');
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect({ section, overflow }).toEqual({ section, overflow: 0 });
      expect(await page.locator('nav a[aria-current="page"]').isVisible()).toBe(true);
    }
    await open('overview');
    await shoot('phone-overview');
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('forgets the key on sign-out', async () => {
    await open('overview');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key with the account scope').waitFor();
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    expect(foreignRequests).toEqual([]);
    expect(consoleProblems).toEqual([]);
  });
});
