import fs from 'node:fs';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { createLogger } from '@gleaner/platform';
import { FilteringProxy } from '../src/filtering-proxy.js';
import { BrowserCrashedError, ManagedBrowser, type ManagedBrowserOptions } from '../src/managed-browser.js';

/** One Chromium per process: replaced after N pages, past its memory limit, when idle, after a crash. */
let sink: FilteringProxy;
const browsers: ManagedBrowser[] = [];

beforeAll(async () => {
  sink = await FilteringProxy.start({ allowPrivateNetworks: false }, { refuseAll: true });
});

afterAll(async () => {
  await Promise.all(browsers.map((b) => b.close()));
  await sink?.close();
});

function managed(options: Partial<ManagedBrowserOptions>): ManagedBrowser {
  const browser = new ManagedBrowser({ executablePath: '/usr/bin/chromium', launchProxy: sink.url, recycleAfterPages: 100, memoryLimitMb: 4000, idleMs: 60_000, logger: createLogger('managed-browser-test', 'error'), ...options });
  browsers.push(browser);
  return browser;
}

/** Renders a trivial page and returns the Chromium (main process id) that did it. */
async function pageOn(browser: ManagedBrowser): Promise<number> {
  return browser.withContext({}, async (context) => {
    const page = await context.newPage();
    await page.setContent('<p>hello</p>');
    return browser.processIds()[0];
  });
}

it('renders pages in one Chromium with its processes counted, and replaces it after BROWSER_RECYCLE_PAGES pages', async () => {
  const browser = managed({ recycleAfterPages: 2, extraArgs: ['--blink-settings=imagesEnabled=false'] });
  const first = await pageOn(browser);
  // Chromium keeps the last --disable-features and --blink-settings only: ours must still hold every one playwright-core passes before it.
  const commandLine = fs.readFileSync(`/proc/${first}/cmdline`, 'utf8').split('\0');
  const listsOf = (flag: string) => commandLine.filter((a) => a.startsWith(flag)).map((a) => a.slice(flag.length).split(','));
  const [playwrights, ours] = listsOf('--disable-features=');
  expect(ours).toEqual(expect.arrayContaining(playwrights));
  expect(ours).toEqual(expect.arrayContaining(['WebUIOmniboxPopup']));
  const [playwrightsBlink, oursBlink] = listsOf('--blink-settings=');
  expect(oursBlink).toEqual(expect.arrayContaining([...playwrightsBlink, 'imagesEnabled=false']));
  expect(first).toBeGreaterThan(0);
  expect(browser.processIds().length).toBeGreaterThan(1); // the browser process and its children
  expect(browser.memory().pssMb).toBeGreaterThan(20);
  expect(await pageOn(browser)).toBe(first);
  const third = await pageOn(browser);
  expect(third).not.toBe(first);
  expect(() => process.kill(first, 0)).toThrow(); // the old one is gone
});

it('replaces a Chromium past its memory limit once its pages are done, and closes an idle one', async () => {
  const browser = managed({ memoryLimitMb: 100, idleMs: 1_000 });
  const first = await pageOn(browser);
  const second = await pageOn(browser);
  expect(second).not.toBe(first);
  await new Promise((r) => setTimeout(r, 2_000));
  expect(browser.processIds()).toEqual([]);
  expect(() => process.kill(second, 0)).toThrow();
});

it('a Chromium killed under a page fails that page with BrowserCrashedError, and the next page gets a fresh one', async () => {
  const browser = managed({});
  const first = await pageOn(browser);
  const crashed = await browser
    .withContext({}, async (context) => {
      const page = await context.newPage();
      process.kill(first, 'SIGKILL');
      await page.goto('about:blank');
      await page.waitForTimeout(5_000);
    })
    .catch((e: Error) => e);
  expect(crashed).toBeInstanceOf(BrowserCrashedError);
  const next = await pageOn(browser);
  expect(next).not.toBe(first);
});
