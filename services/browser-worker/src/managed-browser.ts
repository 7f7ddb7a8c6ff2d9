import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { browserLaunches, type Logger } from '@gleaner/platform';
import { childProcessesNamed, memoryOf, processTree, type ProcessMemory } from './process-memory.js';

/**
 * Features playwright-core (1.65) turns off with its own --disable-features. Chromium keeps only
 * the last --disable-features it is given, so ours repeats these (managed-browser.test.ts checks
 * that it still does after an upgrade).
 */
const PLAYWRIGHT_DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
  'msForceBrowserSignIn',
  'msEdgeUpdateLaunchServicesPreferredVersion',
];

/**
 * Blink settings playwright-core (1.65) passes in headless mode (a desktop's hover and pointer).
 * As with features, Chromium keeps only the last --blink-settings: launchArgs repeats these in ours.
 */
const PLAYWRIGHT_BLINK_SETTINGS = ['primaryHoverType=2', 'availableHoverTypes=2', 'primaryPointerType=4', 'availablePointerTypes=4'];

/**
 * Flags for Debian's Chromium in a container: no sandbox (no user namespaces), no GPU, and none
 * of its own background traffic (updates, sync, field trials), which on a closed network floods
 * it with retries. QUIC off and WebRTC limited to proxied connections: both would leave by UDP,
 * around the filtering proxy.
 *
 * Memory: headless Chromium 156 opens a window per context, and each window preloaded its
 * omnibox popup, a WebUI page in a renderer of its own (about 50 MB PSS per page being rendered):
 * the WebUIOmnibox* features off. Site isolation off (--disable-site-isolation-trials): the
 * cross-site iframes of a page (ads, embeds) share its renderer instead of getting one each.
 * What site isolation guards is a site's data in a renderer from another site's frames; a
 * rendered page holds none (a fresh context per page: no cookies, storage or logins), and
 * contexts still never share a renderer process.
 */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--disable-site-isolation-trials',
  `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, 'WebUIOmniboxPopup', 'WebUIOmniboxAimPopup', 'WebUIOmniboxFullPopup'].join(',')}`,
];

/** CHROMIUM_ARGS and `extraArgs`, their --blink-settings merged into one with Playwright's. */
export function launchArgs(extraArgs: readonly string[] = []): string[] {
  const BLINK = '--blink-settings=';
  const blink = extraArgs.filter((a) => a.startsWith(BLINK)).flatMap((a) => a.slice(BLINK.length).split(','));
  return [...CHROMIUM_ARGS, ...extraArgs.filter((a) => !a.startsWith(BLINK)), ...(blink.length ? [`${BLINK}${[...PLAYWRIGHT_BLINK_SETTINGS, ...blink].join(',')}`] : [])];
}

/** Chromium died under a page (killed, out of memory): the page is worth rendering again. */
export class BrowserCrashedError extends Error {
  constructor(message = 'Chromium exited while rendering the page') {
    super(message);
    this.name = 'BrowserCrashedError';
  }
}

export interface ManagedBrowserOptions {
  executablePath: string;
  /** Proxy for Chromium's own traffic (the refusing sink); pages get theirs per context. */
  launchProxy: string;
  /** Flags added to CHROMIUM_ARGS (the resource types Chromium is told not to load: blockingFlags). */
  extraArgs?: readonly string[];
  recycleAfterPages: number;
  memoryLimitMb: number;
  idleMs: number;
  logger: Logger;
}

/**
 * Least time between two readings of Chromium's memory against its limit. A reading walks /proc
 * and every Chromium process's smaps_rollup: 60-150 ms of the worker's thread on the bench host,
 * which after every page cost more than the rest of the worker's work on it.
 */
const MEMORY_CHECK_INTERVAL_MS = 5_000;

interface Running {
  browser: Browser;
  /** Chromium's main process (the launcher script execs it). */
  pid: number | null;
  /** When its memory was last read against the limit (0: never). */
  memoryCheckedAt: number;
  pages: number;
  active: number;
  retiring: boolean;
  /** Set when Chromium went away without our asking. */
  crashed: boolean;
}

/** How long a page whose target closed waits to learn whether Chromium itself went. */
const CRASH_NOTICE_MS = 1_000;

/** Playwright's error for a page, context or browser closed under a call. */
function isTargetClosed(err: unknown): boolean {
  return err instanceof Error && (err.name === 'TargetClosedError' || /has been closed|Target closed/i.test(err.message));
}

function disconnectionWithin(browser: Browser, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      browser.off('disconnected', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    browser.once('disconnected', done);
  });
}

/**
 * One Chromium per process, shared by every job, each in a fresh context (no cookies, storage or
 * cache shared between requests). Launched on first use; replaced after `recycleAfterPages`
 * pages, or once its processes' memory passes the limit (read as a page finishes, at most every
 * MEMORY_CHECK_INTERVAL_MS; replaced after its running pages finish: new
 * pages wait for the fresh one, so there is never more than one); closed after `idleMs` without
 * pages; launched again after a crash.
 */
export class ManagedBrowser {
  private running: Running | null = null;
  private launching: Promise<Running> | null = null;
  private drained: (() => void) | null = null;
  private draining: Promise<void> | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  private nextLaunchReason = 'first';
  private closed = false;

  constructor(private readonly options: ManagedBrowserOptions) {}

  /** Runs `work` in a fresh context of the current Chromium; a crash under it throws BrowserCrashedError. */
  async withContext<T>(contextOptions: Parameters<Browser['newContext']>[0], work: (context: BrowserContext) => Promise<T>): Promise<T> {
    const run = await this.acquire();
    let context: BrowserContext | null = null;
    try {
      context = await run.browser.newContext(contextOptions);
      return await work(context);
    } catch (err) {
      // A page's calls fail as Chromium dies, a moment before Playwright reports the disconnection.
      if (!run.crashed && run.browser.isConnected() && isTargetClosed(err)) await disconnectionWithin(run.browser, CRASH_NOTICE_MS);
      if (run.crashed || !run.browser.isConnected()) throw new BrowserCrashedError();
      throw err;
    } finally {
      // The page's answer does not wait for its context to close (20-30 ms a page): the context
      // counts as running until it has, so a Chromium being replaced is closed after it.
      this.release(run, context?.close().catch(() => undefined));
    }
  }

  /** Chromium's processes now (the main one and its children), empty when none runs. */
  processIds(): number[] {
    const pid = this.running?.pid;
    return pid ? processTree([pid]) : [];
  }

  memory(): ProcessMemory {
    return memoryOf(this.processIds());
  }

  private async acquire(): Promise<Running> {
    if (this.closed) throw new Error('the browser is closed');
    while (this.draining) await this.draining;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    const run = this.running && !this.running.crashed ? this.running : await (this.launching ??= this.launch().finally(() => (this.launching = null)));
    run.active++;
    return run;
  }

  /** A page is done (its memory still counted: the limit is judged at its high point); its context is gone once `closing` settles. */
  private release(run: Running, closing: Promise<void> | undefined): void {
    run.pages++;
    if (run === this.running && !run.retiring) {
      const reason = run.pages >= this.options.recycleAfterPages ? 'pages' : this.overMemory(run) ? 'memory' : null;
      if (reason) this.retire(run, reason);
    }
    void (closing ?? Promise.resolve()).then(() => {
      run.active--;
      if (run.active > 0) return;
      if (run.retiring) void this.closeRun(run);
      else if (run === this.running) {
        this.idleTimer = setTimeout(() => this.retire(run, 'idle'), this.options.idleMs);
        this.idleTimer.unref();
      }
    });
  }

  private overMemory(run: Running): boolean {
    if (!run.pid || Date.now() - run.memoryCheckedAt < MEMORY_CHECK_INTERVAL_MS) return false;
    run.memoryCheckedAt = Date.now();
    const { pssMb } = memoryOf(processTree([run.pid]));
    if (pssMb <= this.options.memoryLimitMb) return false;
    this.options.logger.info('Chromium over its memory limit, replacing it', { pssMb, limitMb: this.options.memoryLimitMb });
    return true;
  }

  /** New pages wait until this Chromium's pages are done and it is closed. */
  private retire(run: Running, reason: string): void {
    if (run.retiring) return;
    run.retiring = true;
    this.nextLaunchReason = reason;
    this.draining = new Promise<void>((resolve) => (this.drained = resolve));
    if (run.active === 0) void this.closeRun(run);
  }

  private async closeRun(run: Running): Promise<void> {
    if (this.running === run) this.running = null;
    await run.browser.close().catch(() => undefined);
    const resolve = this.drained;
    this.draining = null;
    this.drained = null;
    resolve?.();
  }

  private async launch(): Promise<Running> {
    const before = new Set(this.chromiumChildren());
    const browser = await chromium.launch({
      executablePath: this.options.executablePath,
      args: launchArgs(this.options.extraArgs),
      proxy: { server: this.options.launchProxy },
      // Playwright's own signal handlers would close Chromium before our ordered shutdown ran.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
    const pid = this.chromiumChildren().find((p) => !before.has(p)) ?? null;
    const run: Running = { browser, pid, memoryCheckedAt: 0, pages: 0, active: 0, retiring: false, crashed: false };
    browser.on('disconnected', () => {
      if (run.retiring || this.closed) return;
      run.crashed = true;
      if (this.running === run) this.running = null;
      this.nextLaunchReason = 'crash';
      this.options.logger.warn('Chromium exited unexpectedly; the next page starts a fresh one', { pid, activePages: run.active });
    });
    browserLaunches.inc({ reason: this.nextLaunchReason });
    this.options.logger.info('Chromium started', { pid, reason: this.nextLaunchReason });
    this.running = run;
    return run;
  }

  /** Our child processes that run Chromium (Debian's launcher script execs /usr/lib/chromium/chromium). */
  private chromiumChildren(): number[] {
    let name = 'chromium';
    try {
      name = path.basename(fs.realpathSync(this.options.executablePath));
    } catch {
      // launch() reports a missing executable
    }
    return [...new Set([...childProcessesNamed(process.pid, name), ...childProcessesNamed(process.pid, 'chromium')])];
  }

  /** Closes Chromium now (shutdown: the workers have drained already). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    const run = this.running ?? (this.launching ? await this.launching.catch(() => null) : null);
    if (run) {
      run.retiring = true;
      await this.closeRun(run);
    }
  }
}
