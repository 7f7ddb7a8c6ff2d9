import type dns from 'node:dns';
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { assertPublicUrl, FetchError, fetchBinary, fetchPage, guardedAgents, isAddressAllowed, isPublicAddress, postJson, toFetchError } from '../src/index.js';
import { serve, type LocalServer } from './support/local-server.js';

let main: LocalServer;
let inner: LocalServer;

beforeAll(async () => {
  // 127.0.0.2 stands for "somewhere inside our network" that a public page redirects to.
  inner = await serve('127.0.0.2', { '/secret': (_q, s) => s.writeHead(200, { 'content-type': 'text/html' }).end('<p>internal admin page</p>') });
  main = await serve('127.0.0.1', {
    '/page': (_q, s) => s.writeHead(200, { 'content-type': 'text/html' }).end('<p>public page</p>'),
    '/to-inner': (_q, s) => s.writeHead(302, { location: `${inner.url}/secret` }).end(),
    '/to-file': (_q, s) => s.writeHead(302, { location: 'file:///etc/passwd' }).end(),
    '/to-unix': (_q, s) => s.writeHead(302, { location: 'http://unix:/var/run/docker.sock:/info' }).end(),
  });
});

afterAll(async () => {
  await main?.close();
  await inner?.close();
});

async function failure(p: Promise<unknown>): Promise<FetchError> {
  const outcome = await p.then(
    () => new Error('expected a refusal, got a result'),
    (err: unknown) => err,
  );
  expect(outcome).toBeInstanceOf(FetchError);
  return outcome as FetchError;
}

describe('connection-time guard (guard on)', () => {
  it.each([
    ['loopback', 'http://127.0.0.1:9/'],
    ['RFC 1918', 'http://10.0.0.1/'],
    ['RFC 1918 /12', 'http://172.16.0.1/'],
    ['RFC 1918 /16', 'http://192.168.1.1/'],
    ['CGNAT', 'http://100.64.0.1/'],
    ['metadata', 'http://169.254.169.254/latest/meta-data/'],
    ['unspecified', 'http://0.0.0.0/'],
    ['multicast', 'http://224.0.0.1/'],
    ['reserved', 'http://240.0.0.1/'],
    ['IPv6 loopback', 'http://[::1]:9/'],
    ['IPv6 unspecified', 'http://[::]/'],
    ['IPv6 link-local', 'http://[fe80::1]/'],
    ['IPv6 unique-local', 'http://[fc00::1]/'],
    ['AWS IPv6 metadata', 'http://[fd00:ec2::254]/'],
    ['hostname resolving to loopback', 'http://localhost:9/'],
    ['decimal loopback', 'http://2130706433/'],
    ['octal loopback', 'http://0177.0.0.1/'],
    ['hex short loopback', 'http://0x7f.1/'],
    ['IPv4-mapped loopback', 'http://[::ffff:127.0.0.1]/'],
    ['IPv4-mapped metadata (hex)', 'http://[::ffff:a9fe:a9fe]/'],
    ['IPv4-compatible loopback', 'http://[::127.0.0.1]/'],
    ['NAT64 loopback', 'http://[64:ff9b::7f00:1]/'],
    ['https loopback', 'https://127.0.0.1:9/'],
    ['https IPv6 loopback', 'https://[::1]:9/'],
    ['https hostname resolving to loopback', 'https://localhost:9/'],
  ])('refuses %s (%s) before connecting', async (_name, url) => {
    const started = Date.now();
    const err = await failure(fetchPage(url, { connectTimeoutMs: 3000, deadlineMs: 4000 }));
    expect(err.kind).toBe('blocked_address');
    expect(err.transient).toBe(false);
    // A real connection attempt to an unroutable address would run into the 3 s connect timeout;
    // the margin is wide because a loaded host (CI on 2 cores) took 259 ms for a refusal.
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('guards fetchBinary and postJson the same way, sending nothing', async () => {
    expect((await failure(fetchBinary(`${main.url}/page`))).kind).toBe('blocked_address');
    expect((await failure(postJson(`${main.url}/page`, '{}', { timeoutMs: 1000 }))).kind).toBe('blocked_address');
    expect(main.connections).toBe(0);
  });

  it('checks every redirect hop when it connects: allowed origin, private target refused', async () => {
    // 127.0.0.1 stands in for a public origin; every other non-public address stays refused.
    const guarded = { allowPrivateNetworks: false, allowList: ['127.0.0.1'] };
    expect((await fetchPage(`${main.url}/page`, guarded)).body).toContain('public page');
    expect((await failure(fetchPage(`${main.url}/to-inner`, guarded))).kind).toBe('blocked_address');
    expect((await failure(fetchPage(`${main.url}/to-inner`, { allowPrivateNetworks: true, denyList: ['127.0.0.2'] }))).kind).toBe('blocked_address');
    expect(inner.connections).toBe(0);

    const followed = await fetchPage(`${main.url}/to-inner`, { allowPrivateNetworks: true });
    expect(followed.body).toContain('internal admin page');
    expect(followed.redirects).toEqual([`${inner.url}/secret`]);
    expect(followed.finalUrl).toBe(`${inner.url}/secret`);
    expect(inner.requests).toBe(1);
  });

  it('checks the addresses DNS actually returns at connection time (rebinding), IPv4-compatible ones too', async () => {
    // A resolver under an attacker's control answers whatever it likes for its own hostname.
    const answering = (address: string) =>
      ((_host: string, options: dns.LookupOptions, callback: (...args: unknown[]) => void) => {
        if (options.all) callback(null, [{ address, family: net.isIP(address) }]);
        else callback(null, address, net.isIP(address));
      }) as unknown as net.LookupFunction;
    const get = (address: string, port: number) =>
      new Promise<Error | number>((resolve) => {
        const agent = guardedAgents({ allowPrivateNetworks: false, allowList: ['127.0.0.1'] }).http;
        const req = http.get({ host: 'rebind.example', port, path: '/page', agent, lookup: answering(address) }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', resolve);
      });
    const port = Number(new URL(main.url).port);
    for (const address of ['10.0.0.1', '169.254.169.254', '127.0.0.2', '::7f00:1', '::ffff:127.0.0.1']) {
      const outcome = await get(address, port);
      expect(outcome).toBeInstanceOf(Error);
      expect(toFetchError(outcome).kind).toBe('blocked_address');
    }
    expect(await get('127.0.0.1', port)).toBe(200);
  });

  it('refuses redirects to other schemes and to UNIX sockets', async () => {
    const open = { allowPrivateNetworks: true };
    expect((await failure(fetchPage(`${main.url}/to-file`, open))).kind).toBe('invalid_url');
    expect((await failure(fetchPage(`${main.url}/to-unix`, open))).kind).toBe('invalid_url');
    expect((await failure(fetchPage('http://unix:/var/run/docker.sock:/info', open))).kind).toBe('invalid_url');
  });

  it('refuses non-http schemes, credentials and garbage as invalid_url', async () => {
    for (const url of ['file:///etc/passwd', 'ftp://example.com/', 'gopher://example.com/', 'javascript:alert(1)', 'not a url', `http://user:pw@127.0.0.1/`]) {
      expect((await failure(fetchPage(url, { allowPrivateNetworks: true }))).kind).toBe('invalid_url');
    }
  });

  it('rejects allow/deny lists that are not exact IP addresses (a programming error)', async () => {
    await expect(fetchPage(`${main.url}/page`, { allowList: ['10.0.0.0/8'] })).rejects.toThrow(TypeError);
  });
});

describe('isPublicAddress', () => {
  it.each(['8.8.8.8', '93.184.215.14', '1.1.1.1', '2606:4700:4700::1111', '2a00:1450:4001:81c::200e', '::ffff:8.8.8.8'])('%s is public', (ip) => {
    expect(isPublicAddress(ip)).toBe(true);
  });

  it.each([
    '127.0.0.1', '127.255.255.254', '10.1.2.3', '172.31.255.255', '192.168.0.1', '100.64.0.1', '100.127.255.255', '169.254.169.254', '169.254.0.1',
    '0.0.0.0', '0.1.2.3', '255.255.255.255', '224.0.0.251', '239.255.255.250', '240.0.0.1', '192.0.2.1', '198.18.0.1',
    '::', '::1', 'fe80::1', 'fe80::1%eth0', 'fc00::1', 'fd00:ec2::254', 'ff02::1', '2001:db8::1',
    '::ffff:127.0.0.1', '::ffff:a9fe:a9fe', '::ffff:10.0.0.1', '::7f00:1', '::a00:1', '64:ff9b::7f00:1', '2002:7f00:1::1',
    'localhost', '0177.0.0.1', '2130706433', '', 'not an ip',
  ])('%s is not public', (ip) => {
    expect(isPublicAddress(ip)).toBe(false);
  });

  it('agrees with the policy used at submit time', () => {
    expect(isAddressAllowed('127.0.0.1', { allowPrivateNetworks: false })).toBe(false);
    expect(isAddressAllowed('127.0.0.1', { allowPrivateNetworks: true })).toBe(true);
    expect(isAddressAllowed('127.0.0.1', { allowPrivateNetworks: false, allowList: ['127.0.0.1'] })).toBe(true);
    expect(isAddressAllowed('8.8.8.8', { allowPrivateNetworks: false, denyList: ['8.8.8.8'] })).toBe(false);
    expect(isAddressAllowed('::1', { allowPrivateNetworks: false, allowList: ['0:0::1'] })).toBe(true);
  });
});

describe('assertPublicUrl (submit time)', () => {
  it('accepts a public address without resolving anything', async () => {
    await expect(assertPublicUrl('https://93.184.215.14/page', { requireHttps: true })).resolves.toBeUndefined();
    await expect(assertPublicUrl('http://[2606:4700:4700::1111]/')).resolves.toBeUndefined();
  });

  it.each(['http://127.0.0.1/', 'http://2130706433/', 'http://0177.0.0.1/', 'http://[::ffff:127.0.0.1]/', 'http://[::1]/', 'http://169.254.169.254/', 'http://[fd00:ec2::254]/', 'http://localhost:8080/', 'http://10.0.0.1/'])(
    'refuses %s as blocked_address',
    async (url) => {
      expect((await failure(assertPublicUrl(url))).kind).toBe('blocked_address');
    },
  );

  it('lets private hosts through only with the override', async () => {
    await expect(assertPublicUrl('http://localhost:8080/', { allowPrivateNetworks: true })).resolves.toBeUndefined();
    await expect(assertPublicUrl('http://10.0.0.1/', { allowPrivateNetworks: true })).resolves.toBeUndefined();
  });

  it('refuses bad schemes, plain http when https is required, and unresolvable hosts', async () => {
    expect((await failure(assertPublicUrl('ftp://93.184.215.14/'))).kind).toBe('invalid_url');
    expect((await failure(assertPublicUrl('http://93.184.215.14/', { requireHttps: true }))).message).toBe('an https URL is required');
    // .invalid never resolves (RFC 6761); offline resolvers fail fast too.
    expect((await failure(assertPublicUrl('https://gleaner-test.invalid/', { dnsTimeoutMs: 3000 }))).kind).toBe('dns');
  });
});
