import type { BrowserContext, Page, Request, Response } from 'playwright-core';
import { isHtmlType, isPlainTextType, mediaTypeOf } from '@gleaner/safe-fetch';
import { REFUSED_HEADER, type ProxyRefusal } from './filtering-proxy.js';
import { composedHtml, hasShadowRoots, installPageHooks, pageActivity, scrollDown } from './page-scripts.js';

export interface RenderRequest {
  url: string;
  /** Budget of the whole rendering, ms. */
  timeoutMs: number;
  waitForMs?: number;
  waitForSelector?: string;
}

export interface RenderSettings {
  /** Playwright resource types aborted before they are requested. */
  blockedResources: ReadonlySet<string>;
  /** Longest wait for the page to go quiet after it loaded, ms. */
  settleMs: number;
  /** Viewport heights scrolled at most. */
  scrollSteps: number;
  /** Largest rendered HTML handed on, bytes. */
  maxBytes: number;
}

export interface RenderedPage {
  html: string;
  finalUrl: string;
  statusCode: number;
  contentType: string;
}

/** A page that cannot be rendered as asked; rendering it again would end the same way. */
export class RenderFailure extends Error {
  constructor(
    readonly code: 'E003' | 'E008' | 'E009',
    message: string,
  ) {
    super(message);
    this.name = 'RenderFailure';
  }
}

/** How long nothing may happen on a page (no insertion, answer or timer) for it to count as done. */
const QUIET_MS = 100;
const POLL_MS = 50;
/** Longest wait for lazy content after one round of scrolling. */
const SCROLL_SETTLE_MS = 1_500;

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** Resource types that stay open by design: they never make a page "still loading". */
const LONG_LIVED = new Set(['websocket', 'eventsource']);

/**
 * Renders one page in `context` (fresh, proxied through the filtering proxy): navigates, waits for
 * the page to fill itself in (requests, short timers and DOM insertions gone quiet, bounded by
 * settleMs), for `waitForSelector` and `waitForMs` when asked, scrolls to bring in lazy content,
 * and reads the DOM (open shadow roots included). Everything runs inside `timeoutMs`: when it runs
 * out the context is closed, which ends whatever was in progress, and the failure names the step.
 * `refusals` are the connections the proxy refused during this rendering.
 */
export async function renderPage(context: BrowserContext, request: RenderRequest, settings: RenderSettings, refusals: readonly ProxyRefusal[]): Promise<RenderedPage> {
  const deadline = Date.now() + request.timeoutMs;
  const left = () => deadline - Date.now();
  let step = 'loading the page';
  let expired = false;
  const timer = setTimeout(() => {
    expired = true;
    void context.close().catch(() => undefined);
  }, request.timeoutMs);
  try {
    // Transpilers that keep function names (tsx, esbuild's keepNames) put `__name(fn, "name")` calls
    // into the functions handed to page.evaluate; the page needs the helper they assume.
    await context.addInitScript({ content: 'globalThis.__name ??= (fn) => fn;' });
    await context.addInitScript(installPageHooks);
    await context.route('**/*', (route) => {
      const req = route.request();
      const scheme = new URL(req.url()).protocol;
      if ((scheme !== 'http:' && scheme !== 'https:') || settings.blockedResources.has(req.resourceType())) return route.abort('blockedbyclient').catch(() => undefined);
      return route.continue().catch(() => undefined);
    });
    const page = await context.newPage();
    page.setDefaultTimeout(0); // the budget's timer ends everything
    const inflight = trackRequests(page);
    const failedNavigations: Request[] = [];
    page.on('requestfailed', (r) => r.isNavigationRequest() && r.frame() === page.mainFrame() && failedNavigations.push(r));

    let response: Response | null;
    try {
      response = await page.goto(request.url, { waitUntil: 'domcontentloaded' });
    } catch (err) {
      if (expired) throw err;
      throw navigationFailure(err as Error, failedNavigations, refusals);
    }
    const { statusCode, contentType } = checkResponse(response);

    step = 'waiting for the page to settle';
    await loadedOrAfter(page, Math.min(settings.settleMs, left()));
    await settle(page, Math.min(settings.settleMs, left()), inflight);

    if (request.waitForSelector) {
      step = `waiting for wait_for_selector '${request.waitForSelector}'`;
      const valid = await page.evaluate((selector) => {
        try {
          document.createDocumentFragment().querySelector(selector);
          return true;
        } catch {
          return false;
        }
      }, request.waitForSelector);
      if (!valid) throw new RenderFailure('E009', `wait_for_selector '${request.waitForSelector}' is not a valid CSS selector`);
      await page.waitForSelector(`css=${request.waitForSelector}`, { state: 'attached' });
      await settle(page, Math.min(settings.settleMs, left()), inflight);
    }
    if (request.waitForMs) {
      step = `waiting wait_for (${request.waitForMs} ms)`;
      await page.waitForTimeout(request.waitForMs);
    }

    step = 'scrolling for lazy content';
    const watched = (await page.evaluate(pageActivity)).scrollWatchers > 0;
    for (let stepsLeft = watched ? settings.scrollSteps : 0; stepsLeft > 0; ) {
      const mark = await page.evaluate(() => performance.now());
      const scrolled = await page.evaluate(scrollDown, stepsLeft);
      stepsLeft -= scrolled.steps;
      await settle(page, Math.min(SCROLL_SETTLE_MS, left()), inflight, mark);
      const atBottom = await page.evaluate(() => window.scrollY + window.innerHeight >= (document.scrollingElement ?? document.documentElement).scrollHeight - 2);
      if (atBottom && scrolled.steps === 0) break;
      if (atBottom && stepsLeft > 0) {
        // The settle may have appended content (infinite scroll): at the bottom still means no more came.
        const grew = await page.evaluate(() => window.scrollY + window.innerHeight < (document.scrollingElement ?? document.documentElement).scrollHeight - 2);
        if (!grew) break;
      }
    }

    step = 'reading the rendered page';
    // Scripts ran: what <noscript> says ("enable JavaScript") is not on the page a reader sees.
    await page.evaluate(() => document.querySelectorAll('noscript').forEach((n) => n.remove()));
    const html = (await page.evaluate(hasShadowRoots)) ? await page.evaluate(composedHtml) : await page.content();
    if (Buffer.byteLength(html) > settings.maxBytes) throw new RenderFailure('E008', `the rendered page is larger than ${Math.round(settings.maxBytes / (1024 * 1024))} MB`);
    const finalUrl = page.url();
    if (!/^https?:/i.test(finalUrl)) throw new RenderFailure('E008', 'the page navigated away from http(s)');
    return { html, finalUrl, statusCode, contentType };
  } catch (err) {
    if (expired) {
      const what = step === 'loading the page' ? 'the page did not finish loading' : `rendering did not finish (${step})`;
      throw new RenderFailure('E008', `${what} within its ${seconds(request.timeoutMs)} budget`);
    }
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/** The page's load event, or `ms` (a page may load a slow subresource for ever; that is no failure). */
async function loadedOrAfter(page: Page, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([page.waitForLoadState('load'), new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** Requests of the page still out (long-lived websockets and event streams aside). */
function trackRequests(page: Page): () => number {
  const open = new Set<Request>();
  page.on('request', (r) => !LONG_LIVED.has(r.resourceType()) && open.add(r));
  page.on('requestfinished', (r) => open.delete(r));
  page.on('requestfailed', (r) => open.delete(r));
  return () => open.size;
}

/**
 * Waits until the page has nothing in flight (its requests, short timers) and nothing happened
 * for QUIET_MS, or, with `since` (page time), nothing happened since then; at most `capMs`.
 */
async function settle(page: Page, capMs: number, inflight: () => number, since?: number): Promise<void> {
  const until = Date.now() + capMs;
  while (Date.now() < until) {
    const a = await page.evaluate(pageActivity);
    const quiet = a.quietForMs >= QUIET_MS || (since !== undefined && a.lastActivityAt < since);
    if (quiet && a.pendingRequests === 0 && a.pendingTimers === 0 && inflight() === 0) return;
    await sleep(Math.min(POLL_MS, until - Date.now()));
  }
}

function hostPort(url: string): ProxyRefusal | null {
  try {
    const u = new URL(url);
    return { host: u.hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(u.port || (u.protocol === 'https:' ? 443 : 80)) };
  } catch {
    return null;
  }
}

/** E003 when the proxy refused the page itself (or a redirect hop of it), else E008 with Chromium's reason. */
function navigationFailure(err: Error, failedNavigations: Request[], refusals: readonly ProxyRefusal[]): RenderFailure {
  const refused = failedNavigations.some((r) => {
    const target = hostPort(r.url());
    return target && refusals.some((x) => x.host === target.host && x.port === target.port);
  });
  if (refused) return new RenderFailure('E003', 'url resolves to a private or reserved address');
  if (/Download is starting/i.test(err.message)) return new RenderFailure('E008', 'unsupported content type: the page is a download; send documents to /documents/parse');
  const reason = /net::[A-Z_]+/.exec(err.message)?.[0] ?? err.message.split('\n')[0];
  return new RenderFailure('E008', `could not load the page (${reason})`);
}

function checkResponse(response: Response | null): { statusCode: number; contentType: string } {
  if (!response) return { statusCode: 200, contentType: 'text/html' };
  const headers = response.headers();
  // The proxy's refusal of a plain-http page, which Chromium shows as the server's answer.
  if (headers[REFUSED_HEADER]) throw new RenderFailure('E003', 'url resolves to a private or reserved address');
  const statusCode = response.status();
  if (statusCode === 403 || statusCode === 429) throw new RenderFailure('E008', `blocked by the target site (HTTP ${statusCode})`);
  if (statusCode >= 400) throw new RenderFailure('E008', `target answered HTTP ${statusCode}`);
  const contentType = headers['content-type'] ?? '';
  const mediaType = mediaTypeOf(contentType);
  if (mediaType && !isHtmlType(mediaType) && !isPlainTextType(mediaType)) {
    throw new RenderFailure('E008', `unsupported content type ${mediaType}: the scraper reads HTML and plain text; send documents to /documents/parse`);
  }
  return { statusCode, contentType: contentType || 'text/html' };
}
