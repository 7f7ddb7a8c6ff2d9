import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FetchError, parseRetryAfter, postJson } from '../src/index.js';
import { serve, type LocalServer } from './support/local-server.js';

const open = { allowPrivateNetworks: true, timeoutMs: 2000 };
let receiver: LocalServer;
let received: { body: string; headers: http.IncomingHttpHeaders; method?: string } | undefined;

beforeAll(async () => {
  receiver = await serve('127.0.0.1', {
    '/ok': (q, s) => {
      let body = '';
      q.on('data', (c: Buffer) => (body += c.toString()));
      q.on('end', () => {
        received = { body, headers: q.headers, method: q.method };
        s.writeHead(204).end();
      });
    },
    '/busy': (_q, s) => s.writeHead(429, { 'retry-after': '7' }).end(),
    '/down': (_q, s) => s.writeHead(503, { 'retry-after': new Date(Date.now() + 120_000).toUTCString() }).end(),
    '/broken': (_q, s) => s.writeHead(500).end('boom'),
    '/moved': (_q, s) => s.writeHead(301, { location: '/ok' }).end(),
    '/silent': () => undefined,
    // Headers, then a body that never ends: only the status matters to a webhook sender.
    '/endless': (_q, s) => {
      s.writeHead(200);
      const timer = setInterval(() => s.write(Buffer.alloc(64 * 1024)), 5);
      s.on('close', () => clearInterval(timer));
    },
  });
});

afterAll(async () => {
  await receiver?.close();
});

describe('postJson', () => {
  it('POSTs the raw body as JSON with the given headers', async () => {
    const answer = await postJson(`${receiver.url}/ok`, '{"a":1}', { ...open, headers: { 'X-Webhook-Signature': 't=1,v1=ab' } });
    expect(answer.statusCode).toBe(204);
    expect(answer.retryAfterSeconds).toBeUndefined();
    expect(received).toMatchObject({ body: '{"a":1}', method: 'POST' });
    expect(received?.headers['content-type']).toBe('application/json');
    expect(received?.headers['x-webhook-signature']).toBe('t=1,v1=ab');
  });

  it('returns 429 and 5xx answers with Retry-After instead of throwing', async () => {
    expect(await postJson(`${receiver.url}/busy`, '{}', open)).toMatchObject({ statusCode: 429, retryAfterSeconds: 7 });
    const down = await postJson(`${receiver.url}/down`, '{}', open);
    expect(down.statusCode).toBe(503);
    expect(down.retryAfterSeconds).toBeGreaterThanOrEqual(118);
    expect(down.retryAfterSeconds).toBeLessThanOrEqual(120);
    expect((await postJson(`${receiver.url}/broken`, '{}', open)).statusCode).toBe(500);
  });

  it('does not follow redirects', async () => {
    received = undefined;
    const answer = await postJson(`${receiver.url}/moved`, '{}', open);
    expect([answer.statusCode, answer.headers.location]).toEqual([301, '/ok']);
    expect(received).toBeUndefined();
  });

  it('does not read an endless answer body', async () => {
    const started = Date.now();
    expect((await postJson(`${receiver.url}/endless`, '{}', open)).statusCode).toBe(200);
    expect(Date.now() - started).toBeLessThan(500);
  });

  it('throws FetchError for timeouts, refused connections and private receivers', async () => {
    const started = Date.now();
    const slow = await postJson(`${receiver.url}/silent`, '{}', { ...open, timeoutMs: 300 }).catch((e: unknown) => e);
    expect(slow).toBeInstanceOf(FetchError);
    expect([(slow as FetchError).kind, (slow as FetchError).transient]).toEqual(['timeout', true]);
    expect(Date.now() - started).toBeLessThan(1000);

    const refused = await postJson('http://127.0.0.1:9/', '{}', open).catch((e: unknown) => e);
    expect([(refused as FetchError).kind, (refused as FetchError).transient]).toEqual(['network', true]);

    const before = receiver.connections;
    const blocked = await postJson(`${receiver.url}/ok`, '{}', { timeoutMs: 1000 }).catch((e: unknown) => e);
    expect([(blocked as FetchError).kind, (blocked as FetchError).transient]).toEqual(['blocked_address', false]);
    expect(receiver.connections).toBe(before);
  });
});

describe('parseRetryAfter', () => {
  it('reads delays and HTTP dates, and ignores junk', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:01:30 GMT', now)).toBe(90);
    expect(parseRetryAfter('Tue, 31 Dec 2024 23:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});
