import type { BrowserContext, Page, Request, Response } from 'playwright-core';
import { isHtmlType, isPlainTextType, mediaTypeOf, secondsText } from '@gleaner/safe-fetch';
import { REFUSED_HEADER, type ProxyRefusal } from './filtering-proxy.js';
import { installPageHooks, pageActivity, renderedHtml, scrollDown, type PageActivity } from './page-scripts.js';

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
  /** Milliseconds spent in each step (loading, settling, waiting, scrolling, reading), for the debug log and the bench. */
  stepMs: Record<string, number>;
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
/**
 * The same for a page where nothing at all happened since DOMContentLoaded, through its load
 * event, or nothing since its load event ended, with nothing pending (most pages): it is not
 * filling itself in (what its scripts did before load was done by then, and what they still wait
 * for is a request or timer, which holds the wait), and two frames are enough for anything a
 * load handler queued without a timer or request.
 */
const ARRIVED_QUIET_MS = 35;
const POLL_MS = 50;
/** Longest wait for lazy content after one round of scrolling. */
const SCROLL_SETTLE_MS = 1_500;

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
  const stepMs: Record<string, number> = {};
  let stepKey = 'setup';
  let stepStarted = Date.now();
  const enter = (key: string, description: string) => {
    stepMs[stepKey] = (stepMs[stepKey] ?? 0) + Date.now() - stepStarted;
    [stepKey, step, stepStarted] = [key, description, Date.now()];
  };
  let expired = false;
  const timer = setTimeout(() => {
    expired = true;
    void context.close().catch(() => undefined);
  }, request.timeoutMs);
  try {
    // Transpilers that keep function names (tsx, esbuild's keepNames) put `__name(fn, "name")` calls
    // into the functions handed to page.evaluate; the page needs the helper they assume. One
    // script with the hooks: each addInitScript is a round trip to Chromium.
    await context.addInitScript({ content: `globalThis.__name ??= (fn) => fn;\n(${installPageHooks.toString()})();` });
    const page = await context.newPage();
    await blockRequests(context, page, settings.blockedResources);
    context.on('page', (popup) => void blockRequests(context, popup, settings.blockedResources).catch(() => undefined));
    page.setDefaultTimeout(0); // the budget's timer ends everything
    const inflight = trackRequests(page);
    const failedNavigations: Request[] = [];
    page.on('requestfailed', (r) => r.isNavigationRequest() && r.frame() === page.mainFrame() && failedNavigations.push(r));

    let response: Response | null;
    enter('goto', step);
    try {
      response = await page.goto(request.url, { waitUntil: 'domcontentloaded' });
    } catch (err) {
      if (expired) throw err;
      throw navigationFailure(err as Error, failedNavigations, refusals);
    }
    const { statusCode, contentType } = checkResponse(response);

    enter('load', 'waiting for the page to settle');
    await loadedOrAfter(page, Math.min(settings.settleMs, left()));
    enter('quiet', step);
    // The last reading of the page's activity, when nothing ran since: it tells whether the page watches scrolling.
    let lastReading = await settle(page, Math.min(settings.settleMs, left()), inflight);

    if (request.waitForSelector) {
      enter('selector', `waiting for wait_for_selector '${request.waitForSelector}'`);
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
      lastReading = await settle(page, Math.min(settings.settleMs, left()), inflight);
    }
    if (request.waitForMs) {
      enter('wait', `waiting wait_for (${request.waitForMs} ms)`);
      await page.waitForTimeout(request.waitForMs);
      lastReading = null;
    }

    enter('scroll', 'scrolling for lazy content');
    const watched = (lastReading ?? (await page.evaluate(pageActivity, 0))).scrollWatchers > 0;
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

    enter('read', 'reading the rendered page');
    const html = await page.evaluate(renderedHtml);
    if (Buffer.byteLength(html) > settings.maxBytes) throw new RenderFailure('E008', `the rendered page is larger than ${Math.round(settings.maxBytes / (1024 * 1024))} MB`);
    const finalUrl = page.url();
    if (!/^https?:/i.test(finalUrl)) throw new RenderFailure('E008', 'the page navigated away from http(s)');
    enter('done', 'done');
    return { html, finalUrl, statusCode, contentType, stepMs };
  } catch (err) {
    if (expired) {
      const what = step === 'loading the page' ? 'the page did not finish loading' : `rendering did not finish (${step})`;
      throw new RenderFailure('E008', `${what} within its ${secondsText(request.timeoutMs)} budget`);
    }
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Resource types Chromium itself can be told never to request, by a launch flag (blockingFlags):
 * no request at all, where CDP interception would stop each one for a round trip to this process
 * (images: a page's most numerous requests; the round trips cost ~20 ms a page and held its load event).
 */
const BLOCKED_BY_FLAG: Record<string, string> = { image: '--blink-settings=imagesEnabled=false', font: '--disable-remote-fonts' };
/** CDP's names of the other Playwright resource types (BROWSER_BLOCKED_RESOURCES). */
const CDP_RESOURCE_TYPES: Record<string, string> = { media: 'Media', stylesheet: 'Stylesheet', texttrack: 'TextTrack', manifest: 'Manifest', other: 'Other' };
/**
 * Schemes a page has no business loading. Chromium already refuses them to web pages; aborting
 * them here as well keeps that from resting on Chromium alone. Everything else a page loads is
 * http(s) or ws(s), through the filtering proxy, or in-memory (data:, blob:, about:).
 */
const REFUSED_SCHEMES = ['file:*', 'chrome*:*', 'devtools:*', 'filesystem:*', 'view-source:*'];

/** The Chromium flags for the blocked resource types that have one: renderPage expects a browser launched with them. */
export function blockingFlags(blockedResources: Iterable<string>): string[] {
  return [...new Set([...blockedResources].map((type) => BLOCKED_BY_FLAG[type]).filter(Boolean))];
}

/**
 * Aborts the page's requests of the other blocked resource types and of refused schemes, in
 * Chromium (CDP Fetch with request patterns): only those requests stop on their way for an
 * answer from here. Playwright's context.route() would stop every request of the page for a
 * round trip to this process, which cost more than all the blocked images saved.
 */
async function blockRequests(context: BrowserContext, page: Page, blockedResources: ReadonlySet<string>): Promise<void> {
  const session = await context.newCDPSession(page);
  session.on('Fetch.requestPaused', ({ requestId }) => void session.send('Fetch.failRequest', { requestId, errorReason: 'BlockedByClient' }).catch(() => undefined));
  const patterns = [
    ...[...blockedResources].filter((type) => CDP_RESOURCE_TYPES[type]).map((type) => ({ urlPattern: '*', resourceType: CDP_RESOURCE_TYPES[type] as 'Media' })),
    ...REFUSED_SCHEMES.map((urlPattern) => ({ urlPattern })),
  ];
  await session.send('Fetch.enable', { patterns });
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

/**
 * Requests of the page still out over the network (long-lived websockets and event streams
 * aside). In-memory ones (blob:, data:) are left out: Chromium reports no end for some of them,
 * and one would hold every wait to its cap.
 */
function trackRequests(page: Page): () => number {
  const open = new Set<Request>();
  page.on('request', (r) => !LONG_LIVED.has(r.resourceType()) && /^https?:/i.test(r.url()) && open.add(r));
  page.on('requestfinished', (r) => open.delete(r));
  page.on('requestfailed', (r) => open.delete(r));
  return () => open.size;
}

/**
 * Waits until the page has nothing in flight (its requests, short timers due before the wait
 * would end anyway) and nothing happened for QUIET_MS, or, with `since` (page time), nothing
 * happened since then; at most `capMs`.
 */
async function settle(page: Page, capMs: number, inflight: () => number, since?: number): Promise<PageActivity | null> {
  const until = Date.now() + capMs;
  let a: PageActivity | null = null;
  while (Date.now() < until) {
    a = await page.evaluate(pageActivity, until - Date.now());
    const left = quietLeftMs(a);
    const quiet = left <= 0 || (since !== undefined && a.lastActivityAt < since);
    const busy = a.pendingRequests > 0 || a.pendingTimers > 0 || inflight() > 0;
    if (quiet && !busy) return a;
    // When only the quiet time is missing, look again as soon as it has passed.
    await sleep(Math.min(busy ? POLL_MS : left, POLL_MS, until - Date.now()));
  }
  // At the cap: the page may have changed during the last sleep.
  return null;
}

/**
 * How much longer the page must stay as it is to count as quiet: ARRIVED_QUIET_MS after it
 * arrived or after its load event when nothing happened since, else QUIET_MS after its last activity.
 */
export function quietLeftMs(a: Pick<PageActivity, 'quietForMs' | 'activeSinceArrival' | 'quietSinceLoadMs'>): number {
  if (!a.activeSinceArrival) return ARRIVED_QUIET_MS - a.quietForMs;
  if (a.quietSinceLoadMs >= 0) return Math.min(ARRIVED_QUIET_MS - a.quietSinceLoadMs, QUIET_MS - a.quietForMs);
  return QUIET_MS - a.quietForMs;
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
