/**
 * Code that runs inside the rendered page. Plain functions handed to Playwright, which serialises
 * their source: they may use nothing from this module's scope.
 */

/** The page's activity as `pageActivity` reports it. */
export interface PageActivity {
  /** fetch() and XMLHttpRequest calls not yet answered. */
  pendingRequests: number;
  /** Short timers (setTimeout up to 5 s, at most three generations deep) not yet fired, and due within the `withinMs` asked for. */
  pendingTimers: number;
  /** Milliseconds since the last DOM insertion or text change, answered request or fired timer. */
  quietForMs: number;
  /** Milliseconds since the page's time origin. */
  now: number;
  /** performance.now() of the last activity. */
  lastActivityAt: number;
  /** Whether anything happened since the document arrived (DOMContentLoaded). */
  activeSinceArrival: boolean;
  /** Milliseconds since the load event ended when nothing happened after it, else -1 (not loaded yet, or active since). */
  quietSinceLoadMs: number;
  /** Elements given to an IntersectionObserver plus scroll and wheel listeners: what scrolling can set off. */
  scrollWatchers: number;
}

/**
 * Installed in every frame before the page's own scripts (context.addInitScript):
 * - WebRTC is removed: its UDP would not go through the filtering proxy (Chromium is also told
 *   to keep WebRTC on proxied connections only);
 * - activity is tracked, so the renderer can tell a page that is still filling itself in (a
 *   request out, a timer about to fire, nodes being inserted) from one that is done. Timers
 *   that keep re-arming themselves (carousels, polling) stop counting after three generations,
 *   for good (the generation is carried on past the third, or a loop polling every 50 ms for a
 *   script that never came would count again every fourth round and never let the page be
 *   quiet), long ones (over 5 s) never count: waiting for them is `wait_for`'s job, and neither
 *   do the fallback timeouts head scripts set (see headFallback).
 */
export function installPageHooks(): void {
  const w = window as unknown as Record<string, unknown>;
  for (const name of ['RTCPeerConnection', 'webkitRTCPeerConnection', 'RTCDataChannel', 'RTCIceCandidate', 'RTCSessionDescription', 'RTCRtpSender', 'RTCRtpReceiver']) {
    try {
      delete w[name];
      Object.defineProperty(window, name, { value: undefined, configurable: false, writable: false });
    } catch {
      /* already gone */
    }
  }
  const SHORT_TIMER_MS = 5_000;
  const MAX_GENERATION = 3;
  const HEAD_FALLBACK_MS = 1_000;
  let lastActivityAt = performance.now();
  let pendingRequests = 0;
  /** Counted timers by id, with when they are due (performance.now()). */
  const pendingTimers = new Map<unknown, number>();
  let generation = 0;
  const touch = () => {
    lastActivityAt = performance.now();
  };

  const realSetTimeout = window.setTimeout.bind(window);
  const realClearTimeout = window.clearTimeout.bind(window);
  (window as { setTimeout: unknown }).setTimeout = (handler: unknown, delay?: number, ...args: unknown[]) => {
    const ms = Number(delay) || 0;
    const childGeneration = generation + 1;
    if (typeof handler !== 'function' || ms > SHORT_TIMER_MS) return realSetTimeout(handler as TimerHandler, delay, ...args);
    // A timer of a second or more set by a script in the head, before the body exists, is a
    // fallback: a web-font loader's or an A/B test's anti-flicker timeout (3-4 s) that reveals
    // the page by a class name if nothing else did sooner. It changes no content; waiting for it
    // would hold the page seconds for nothing.
    const headFallback = ms >= HEAD_FALLBACK_MS && generation === 0 && !document.body;
    const counted = childGeneration <= MAX_GENERATION && !headFallback;
    const id: unknown = realSetTimeout(() => {
      pendingTimers.delete(id);
      const outer = generation;
      generation = childGeneration;
      try {
        (handler as (...a: unknown[]) => void)(...args);
      } finally {
        generation = outer;
        if (counted) touch();
      }
    }, ms);
    if (counted) pendingTimers.set(id, performance.now() + ms);
    return id;
  };
  (window as { clearTimeout: unknown }).clearTimeout = (id?: number) => {
    pendingTimers.delete(id);
    realClearTimeout(id);
  };

  const realFetch = window.fetch?.bind(window);
  if (realFetch) {
    window.fetch = (...args: Parameters<typeof fetch>) => {
      pendingRequests++;
      return realFetch(...args).finally(() => {
        pendingRequests--;
        touch();
      });
    };
  }
  const realSend = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function send(this: XMLHttpRequest, ...args: Parameters<XMLHttpRequest['send']>) {
    pendingRequests++;
    this.addEventListener('loadend', () => {
      pendingRequests--;
      touch();
    }, { once: true });
    return realSend.apply(this, args);
  };

  // Whether scrolling can bring anything in: lazy loaders watch elements come into view or listen
  // for scroll events; a page with neither has nothing to load on scrolling, and is not scrolled.
  let scrollWatchers = 0;
  if (typeof IntersectionObserver === 'function') {
    const realObserve = IntersectionObserver.prototype.observe;
    IntersectionObserver.prototype.observe = function observe(this: IntersectionObserver, target: Element) {
      scrollWatchers++;
      return realObserve.call(this, target);
    };
  }
  const realAddEventListener = EventTarget.prototype.addEventListener;
  EventTarget.prototype.addEventListener = function addEventListener(this: EventTarget, type: string, ...rest: [EventListenerOrEventListenerObject | null, (boolean | AddEventListenerOptions)?]) {
    if (type === 'scroll' || type === 'wheel') scrollWatchers++;
    return realAddEventListener.call(this, type, ...rest);
  };

  // From DOMContentLoaded on: what the parser inserts is the page arriving, not scripts filling it
  // in, and observing it would cost a record per node of a large page.
  const observe = () => new MutationObserver(touch).observe(document, { childList: true, subtree: true, characterData: true });
  let arrivedAt = Number.POSITIVE_INFINITY;
  const arrive = () => {
    touch();
    arrivedAt = lastActivityAt;
    observe();
  };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', arrive, { once: true });
  else arrive();

  Object.defineProperty(window, '__gleanerActivity', {
    value: (withinMs: number): PageActivity => {
      const now = performance.now();
      let dueWithin = 0;
      for (const dueAt of pendingTimers.values()) if (dueAt <= now + withinMs) dueWithin++;
      // What load handlers inserted was observed before loadEventEnd (microtasks run after each handler).
      const loadEnd = (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined)?.loadEventEnd ?? 0;
      const quietSinceLoadMs = loadEnd > 0 && lastActivityAt <= loadEnd ? now - loadEnd : -1;
      return { pendingRequests, pendingTimers: dueWithin, quietForMs: now - lastActivityAt, now, lastActivityAt, activeSinceArrival: lastActivityAt > arrivedAt, quietSinceLoadMs, scrollWatchers };
    },
    enumerable: false,
  });
}

/**
 * The activity the hooks recorded (zeros on a page they could not reach, e.g. a text file), with
 * only the timers due within `withinMs`: one due after the wait has given up is not worth waiting for.
 */
export function pageActivity(withinMs: number): PageActivity {
  const read = (window as unknown as { __gleanerActivity?: (withinMs: number) => PageActivity }).__gleanerActivity;
  return read ? read(withinMs) : { pendingRequests: 0, pendingTimers: 0, quietForMs: Number.POSITIVE_INFINITY, now: performance.now(), lastActivityAt: 0, activeSinceArrival: false, quietSinceLoadMs: -1, scrollWatchers: 0 };
}

/**
 * Scrolls down one viewport at a time, a frame apart (IntersectionObserver callbacks run by then), up to `maxSteps` viewports or the bottom of the page. Returns the steps taken and
 * whether the bottom was reached.
 */
export async function scrollDown(maxSteps: number): Promise<{ steps: number; atBottom: boolean }> {
  // One frame renders the scrolled view; IntersectionObserver callbacks are queued as a task
  // right after it, so a zero timeout lets them run.
  const frames = () => new Promise<void>((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
  const scroller = document.scrollingElement ?? document.documentElement;
  const atBottom = () => window.scrollY + window.innerHeight >= scroller.scrollHeight - 2;
  let steps = 0;
  while (steps < maxSteps && !atBottom()) {
    window.scrollBy(0, Math.max(window.innerHeight, 200));
    steps++;
    await frames();
  }
  return { steps, atBottom: atBottom() };
}

/**
 * The page's HTML as a reader sees it, in one call: `<noscript>` removed (scripts ran: what it
 * says, "enable JavaScript", is not on the page), and open shadow roots inlined when there are
 * any, else the document as page.content() serialises it.
 */
export function renderedHtml(): string {
  document.querySelectorAll('noscript').forEach((n) => n.remove());
  if (!document.documentElement) return '';
  const walker = document.createTreeWalker(document.documentElement, NodeFilter.SHOW_ELEMENT);
  let shadowRoots = false;
  for (let node = walker.currentNode as Element | null; node && !shadowRoots; node = walker.nextNode() as Element | null) shadowRoots = !!node.shadowRoot;
  if (!shadowRoots) return (document.doctype ? new XMLSerializer().serializeToString(document.doctype) : '') + document.documentElement.outerHTML;

  // The document's HTML with every open shadow root's content in place of its host's children, and
  // slotted children where their <slot> is: the page as it is shown, for an extractor that reads
  // light DOM only. Scripts are kept (metadata such as JSON-LD lives there), like page.content().
  const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);
  const RAW_TEXT = new Set(['script', 'style', 'xmp', 'iframe', 'noembed', 'noframes', 'plaintext', 'noscript']);
  const escapeText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\u00a0/g, '&nbsp;');
  const escapeAttr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/\u00a0/g, '&nbsp;');
  const out: string[] = [];
  const childrenOf = (node: Node): Node[] => {
    if (node instanceof HTMLSlotElement) {
      const assigned = node.assignedNodes({ flatten: false });
      return assigned.length ? assigned : [...node.childNodes];
    }
    if (node instanceof Element && node.shadowRoot) return [...node.shadowRoot.childNodes];
    if (node instanceof HTMLTemplateElement) return [];
    return [...node.childNodes];
  };
  const write = (node: Node, rawParent: boolean) => {
    if (node.nodeType === Node.TEXT_NODE) {
      out.push(rawParent ? (node.nodeValue ?? '') : escapeText(node.nodeValue ?? ''));
      return;
    }
    if (node.nodeType !== Node.ELEMENT_NODE) return;
    const el = node as Element;
    const tag = el.localName;
    // A slot is a placeholder: what it shows is written in its place.
    if (el instanceof HTMLSlotElement) {
      for (const child of childrenOf(el)) write(child, false);
      return;
    }
    out.push(`<${tag}`);
    for (const attr of el.attributes) out.push(` ${attr.name}="${escapeAttr(attr.value)}"`);
    out.push('>');
    if (VOID.has(tag)) return;
    for (const child of childrenOf(el)) write(child, RAW_TEXT.has(tag));
    out.push(`</${tag}>`);
  };
  const doctype = document.doctype ? `<!DOCTYPE ${document.doctype.name}>` : '';
  write(document.documentElement, false);
  return doctype + out.join('');
}
