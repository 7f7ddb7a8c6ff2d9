import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FetchError, fetchPage } from '../src/index.js';
import { serve, type LocalServer } from './support/local-server.js';

/**
 * What a crawl asks of a fetch (issue 40): a say on each redirect before it is followed, a way to
 * stop it from outside, and the Retry-After of a 429 or 503.
 */
let site: LocalServer;
const page = '<html><body><p>page</p></body></html>';
/** The slow route's answer, cleared once its request is gone (a pending timer would hold jest). */
let slowTimer: NodeJS.Timeout | undefined;

beforeAll(async () => {
  site = await serve('127.0.0.1', {
    '/from': (_q, s) => void s.writeHead(301, { location: '/to' }).end(),
    '/to': (_q, s) => void s.writeHead(200, { 'content-type': 'text/html' }).end(page),
    '/busy': (_q, s) => void s.writeHead(429, { 'retry-after': '7', 'content-type': 'text/plain' }).end('wait'),
    '/down': (_q, s) => void s.writeHead(503, { 'retry-after': '3' }).end(),
    '/slow': (req, s) => {
      slowTimer = setTimeout(() => s.writeHead(200, { 'content-type': 'text/html' }).end(page), 2_000);
      req.once('close', () => clearTimeout(slowTimer));
    },
  });
});

afterAll(async () => {
  clearTimeout(slowTimer);
  await site.close();
});

describe('a crawl’s fetch', () => {
  it('asks before following each redirect, and stops when refused', async () => {
    const asked: string[] = [];
    const followed = await fetchPage(`${site.url}/from`, { allowPrivateNetworks: true, beforeRedirect: (to) => void asked.push(to.pathname) });
    expect(followed.finalUrl).toBe(`${site.url}/to`);
    expect(asked).toEqual(['/to']);
    const refused = await fetchPage(`${site.url}/from`, { allowPrivateNetworks: true, beforeRedirect: async () => 'already crawled' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(FetchError);
    expect(refused).toMatchObject({ kind: 'redirect_refused', message: 'already crawled', redirectTo: `${site.url}/to` });
  });

  it('is stopped by its signal, as kind aborted', async () => {
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 100);
    const err = await fetchPage(`${site.url}/slow`, { allowPrivateNetworks: true, signal: controller.signal }).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'aborted' });
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('reads the Retry-After of a 429 and a 503', async () => {
    expect(await fetchPage(`${site.url}/busy`, { allowPrivateNetworks: true }).catch((e: unknown) => e)).toMatchObject({ kind: 'blocked', statusCode: 429, retryAfterMs: 7_000 });
    expect(await fetchPage(`${site.url}/down`, { allowPrivateNetworks: true }).catch((e: unknown) => e)).toMatchObject({ kind: 'http_status', statusCode: 503, retryAfterMs: 3_000 });
  });
});
