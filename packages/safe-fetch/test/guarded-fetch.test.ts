import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createGuardedFetch, FetchError, isBlockedAddressError } from '../src/index.js';
import { serve, type LocalServer } from './support/local-server.js';

let api: LocalServer;
let inner: LocalServer;
const seen: Array<{ method: string; headers: Record<string, unknown>; body: string }> = [];

beforeAll(async () => {
  // 127.0.0.1 plays a public API host (allow-listed); 127.0.0.2 is "inside our network".
  inner = await serve('127.0.0.2', { '/v1/messages': (_q, s) => s.writeHead(200, { 'content-type': 'application/json' }).end('{"inner":true}') });
  api = await serve('127.0.0.1', {
    '/v1/messages': (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen.push({ method: req.method ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '7', 'x-multi': ['a', 'b'] }).end('{"type":"error"}');
      });
    },
    '/no-content': (_q, s) => s.writeHead(204).end(),
    '/redirect': (_q, s) => s.writeHead(307, { location: `${inner.url}/v1/messages` }).end(),
    '/slow': () => undefined,
  });
});

afterAll(async () => {
  await api?.close();
  await inner?.close();
});

const guarded = createGuardedFetch({ allowPrivateNetworks: false, allowList: ['127.0.0.1'] });

async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => new Error('expected a rejection'),
    (err: unknown) => err,
  );
}

describe('createGuardedFetch', () => {
  it('speaks fetch: method, headers and body out; status, headers and body back', async () => {
    const res = await guarded(`${api.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer k', 'accept-encoding': 'gzip' }, body: '{"a":1}' });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('7');
    expect(res.headers.get('x-multi')).toBe('a, b');
    expect(await res.json()).toEqual({ type: 'error' });
    expect(seen.at(-1)).toMatchObject({ method: 'POST', body: '{"a":1}', headers: { authorization: 'Bearer k', 'content-type': 'application/json' } });
    // Nothing here decompresses, so no compression is offered.
    expect(seen.at(-1)?.headers['accept-encoding']).toBeUndefined();
    expect((await guarded(`${api.url}/no-content`)).status).toBe(204);
  });

  it('refuses an address outside the policy when connecting, sending nothing', async () => {
    const err = await rejection(guarded(`${inner.url}/v1/messages`, { method: 'POST', body: '{}' }));
    expect(err).toBeInstanceOf(FetchError);
    expect(isBlockedAddressError(err)).toBe(true);
    expect(isBlockedAddressError(new Error('wrapped', { cause: err }))).toBe(true);
    expect(isBlockedAddressError(new Error('other'))).toBe(false);
    // A name is judged by what it resolves to when connecting: localhost is loopback.
    expect(isBlockedAddressError(await rejection(createGuardedFetch({ allowPrivateNetworks: false })(`http://localhost:${new URL(api.url).port}/v1/messages`)))).toBe(true);
    expect(inner.connections).toBe(0);
    // Private networks allowed (development, tests): the same call goes through.
    expect((await createGuardedFetch({ allowPrivateNetworks: true })(`${inner.url}/v1/messages`)).status).toBe(200);
  });

  it('returns a redirect instead of following it (credentials would go along)', async () => {
    const before = inner.requests;
    const res = await createGuardedFetch({ allowPrivateNetworks: true })(`${api.url}/redirect`, { headers: { authorization: 'Bearer k' } });
    expect(res.status).toBe(307);
    expect(inner.requests).toBe(before);
  });

  it('stops when the signal aborts', async () => {
    const started = Date.now();
    const err = await rejection(guarded(`${api.url}/slow`, { signal: AbortSignal.timeout(200) }));
    expect((err as Error).name).toBe('TimeoutError');
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
