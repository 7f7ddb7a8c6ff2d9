import dns from 'node:dns';
import { afterEach, expect, it, jest } from '@jest/globals';
import { cachingLookup } from '../src/dns-cache.js';

/** The filtering proxy's resolver: one system lookup per name at a time, answers kept a minute, missing names 10 s. */
type Answer = { code?: string; addresses?: dns.LookupAddress[] };
let answers: Record<string, Answer> = {};
const calls: string[] = [];

function fakeResolver() {
  return jest.spyOn(dns, 'lookup').mockImplementation(((hostname: string, _options: dns.LookupAllOptions, callback: (err: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void) => {
    calls.push(hostname);
    const answer = answers[hostname] ?? { code: 'ENOTFOUND' };
    setTimeout(() => (answer.code ? callback(Object.assign(new Error(answer.code), { code: answer.code }), []) : callback(null, answer.addresses ?? [])), 5);
  }) as unknown as typeof dns.lookup);
}

afterEach(() => {
  jest.restoreAllMocks();
  calls.length = 0;
  answers = {};
});

const ask = (lookup: ReturnType<typeof cachingLookup>, host: string, options: dns.LookupOptions) =>
  new Promise<{ err: NodeJS.ErrnoException | null; address: unknown; family?: number }>((resolve) =>
    (lookup as unknown as (h: string, o: dns.LookupOptions, cb: (err: NodeJS.ErrnoException | null, address: unknown, family?: number) => void) => void)(host, options, (err, address, family) => resolve({ err, address, family })),
  );

it('answers lookups of one name at once with one system lookup, in the form each caller asked for', async () => {
  fakeResolver();
  answers['site.example'] = { addresses: [{ address: '2001:db8::1', family: 6 }, { address: '93.184.215.14', family: 4 }] };
  const lookup = cachingLookup();
  const [all, first, v4] = await Promise.all([ask(lookup, 'site.example', { all: true }), ask(lookup, 'SITE.example', {}), ask(lookup, 'site.example', { family: 4 })]);
  expect(calls).toEqual(['site.example']);
  expect(all.address).toEqual([
    { address: '2001:db8::1', family: 6 },
    { address: '93.184.215.14', family: 4 },
  ]);
  expect(first).toMatchObject({ err: null, address: '2001:db8::1', family: 6 });
  expect(v4).toMatchObject({ err: null, address: '93.184.215.14', family: 4 });
  const v6only = await ask(lookup, 'site.example', { family: 6, all: true });
  expect(v6only.address).toEqual([{ address: '2001:db8::1', family: 6 }]);
  expect(calls).toHaveLength(1);
});

it('keeps answers a minute and missing names 10 s, and never keeps a resolver failure', async () => {
  fakeResolver();
  let now = 1_000_000;
  const lookup = cachingLookup(() => now);
  answers['site.example'] = { addresses: [{ address: '93.184.215.14', family: 4 }] };
  answers['flaky.example'] = { code: 'EAI_AGAIN' };
  await ask(lookup, 'site.example', {});
  expect((await ask(lookup, 'missing.example', {})).err?.code).toBe('ENOTFOUND');
  expect((await ask(lookup, 'flaky.example', {})).err?.code).toBe('EAI_AGAIN');
  calls.length = 0;

  now += 9_000;
  await ask(lookup, 'site.example', {});
  expect((await ask(lookup, 'missing.example', {})).err?.code).toBe('ENOTFOUND');
  await ask(lookup, 'flaky.example', {});
  expect(calls).toEqual(['flaky.example']);

  now += 2_000; // 11 s: the missing name is asked again, the answer is still kept
  answers['missing.example'] = { addresses: [{ address: '93.184.215.15', family: 4 }] };
  expect((await ask(lookup, 'missing.example', {})).address).toBe('93.184.215.15');
  await ask(lookup, 'site.example', {});
  expect(calls).toEqual(['flaky.example', 'missing.example']);

  now += 50_000; // 61 s after the first answer
  await ask(lookup, 'site.example', {});
  expect(calls).toEqual(['flaky.example', 'missing.example', 'site.example']);
});
