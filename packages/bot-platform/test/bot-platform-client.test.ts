import { inspect } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { BotPlatformError, createBotPlatformClient } from '../src/index.js';
import { startFakeBotPlatform, type FakeBotPlatform } from '../../../tests/fakes/bot-platform.js';

const TOKEN = 'client-token-SECRET-42';
const LOOKUP = 'GET /subscriber/get-info-by-user-id';

describe('createBotPlatformClient', () => {
  let fake: FakeBotPlatform;
  let client: ReturnType<typeof createBotPlatformClient>;

  beforeAll(async () => {
    fake = await startFakeBotPlatform({ tokens: [TOKEN], subscribers: [{ phone: '+5215512345678' }], userFields: [{ name: 'city' }] });
    client = createBotPlatformClient({ baseUrl: `${fake.baseUrl}/`, token: TOKEN, timeoutMs: 1000, retry: { baseDelayMs: 10 } });
  });
  afterEach(() => {
    fake.clearFaults();
    fake.settings.wrapSingleObjects = true;
  });
  afterAll(() => fake.close());

  it('reads single subscribers both wrapped in data and bare', async () => {
    const wrapped = await client.findSubscriberByUserId('5215512345678');
    fake.settings.wrapSingleObjects = false;
    const bare = await client.findSubscriberByUserId('5215512345678');
    const created = await client.createSubscriber({ phone: '5215500000000' });
    expect(wrapped?.user_ns).toMatch(/^f\d+u\d+$/);
    expect(bare?.user_ns).toBe(wrapped?.user_ns);
    expect(created.user_ns).toMatch(/^f\d+u\d+$/);
    expect(await client.searchSubscribersByPhone('+5215512345678')).toEqual([expect.objectContaining({ user_ns: wrapped?.user_ns })]);
  });

  it('does not mistake an HTML page (wrong base URL) for "not found"', async () => {
    const lost = createBotPlatformClient({ baseUrl: fake.baseUrl.replace(/\/api$/, '/nope'), token: TOKEN, timeoutMs: 1000 });
    await expect(lost.findSubscriberByUserId('5215512345678')).rejects.toMatchObject({ kind: 'not_found', status: 404, message: expect.stringContaining('non-JSON page') });
  });

  it('retries lookups after dropped connections but sends and creates only once', async () => {
    fake.failNext(LOOKUP, { reset: true }, 2);
    expect(await client.findSubscriberByUserId('5215512345678')).not.toBeNull();

    const before = fake.requestsTo('POST /subscriber/create').length;
    fake.failNext('POST /subscriber/create', { status: 503 });
    await expect(client.createSubscriber({ phone: '5215511111111' })).rejects.toMatchObject({ kind: 'server', status: 503 });
    expect(fake.requestsTo('POST /subscriber/create').length - before).toBe(1);

    fake.failNext('POST /subscriber/send-sub-flow', { reset: true });
    await expect(client.sendSubFlow('f1u1', 'f1s1')).rejects.toMatchObject({ kind: 'network' });
    expect(fake.requestsTo('POST /subscriber/send-sub-flow')).toHaveLength(1);
  });

  it('caps a long retry-after at maxRetryAfterMs', async () => {
    const capped = createBotPlatformClient({ baseUrl: fake.baseUrl, token: TOKEN, timeoutMs: 1000, retry: { baseDelayMs: 10, maxRetryAfterMs: 50 } });
    fake.failNext(LOOKUP, { status: 429, headers: { 'retry-after': '3600' } }, 2);
    const started = Date.now();
    expect(await capped.findSubscriberByUserId('5215512345678')).not.toBeNull();
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('retries a lookup answered by a proxy\'s HTML error page, and says what it was', async () => {
    fake.failNext(LOOKUP, { status: 502, html: true }, 2);
    expect(await client.findSubscriberByUserId('5215512345678')).not.toBeNull();
    fake.failNext('POST /subscriber/send-sub-flow', { status: 503, html: true });
    await expect(client.sendSubFlow('f1u1', 'f1s1')).rejects.toMatchObject({ kind: 'server', status: 503, message: 'Bot platform failed while sending the sub flow (HTTP 503): answered with a non-JSON error page' });
  });

  it('cuts each request to the time left before the deadline, and sends nothing once it has passed', async () => {
    const before = fake.requests.length;
    const late = createBotPlatformClient({ baseUrl: fake.baseUrl, token: TOKEN, timeoutMs: 10_000, deadlineAt: Date.now() - 1 });
    await expect(late.sendSubFlow('f1u1', 'f1s1')).rejects.toMatchObject({ kind: 'timeout' });
    expect(fake.requests.length).toBe(before);

    fake.failNext(LOOKUP, { hang: true });
    const started = Date.now();
    const soon = createBotPlatformClient({ baseUrl: fake.baseUrl, token: TOKEN, timeoutMs: 10_000, deadlineAt: Date.now() + 300 });
    await expect(soon.findSubscriberByUserId('5215512345678')).rejects.toMatchObject({ kind: 'timeout', message: expect.stringMatching(/^Bot platform did not answer within 0\.[23] s$/) });
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('does not start a retry wait that would end after the deadline', async () => {
    fake.failNext(LOOKUP, { status: 429, headers: { 'retry-after': '2' } }, 2);
    const started = Date.now();
    const hurried = createBotPlatformClient({ baseUrl: fake.baseUrl, token: TOKEN, timeoutMs: 1000, deadlineAt: Date.now() + 1_000 });
    await expect(hurried.findSubscriberByUserId('5215512345678')).rejects.toMatchObject({ kind: 'rate_limited', status: 429 });
    expect(Date.now() - started).toBeLessThan(500);
    fake.clearFaults();
  });

  it('asks the admission before each request and sends nothing it refuses', async () => {
    let allowed = 1;
    const admission = { admit: async () => (allowed-- > 0 ? ({ admitted: true } as const) : ({ admitted: false, retryAfterMs: 42_000 } as const)) };
    const metered = createBotPlatformClient({ baseUrl: fake.baseUrl, token: TOKEN, timeoutMs: 1000, admission, retry: { attempts: 1 } });
    const before = fake.requests.length;
    expect(await metered.findSubscriberByUserId('5215512345678')).not.toBeNull();
    await expect(metered.sendSubFlow('f1u1', 'f1s1')).rejects.toMatchObject({ kind: 'rate_limited', retryAfterMs: 42_000, message: 'Request quota for this bot token is used up (next request in 42 s)' });
    expect(fake.requests.length).toBe(before + 1);
  });

  it('types its errors and keeps the token out of them, even when inspected', async () => {
    const wrong = createBotPlatformClient({ baseUrl: fake.baseUrl, token: 'wrong-SECRET', timeoutMs: 1000 });
    const unauthorized = await wrong.sendSubFlow('f1u1', 'f1s1').catch((e: unknown) => e);
    expect(unauthorized).toBeInstanceOf(BotPlatformError);
    expect(unauthorized).toMatchObject({ kind: 'unauthorized', status: 401 });

    const impatient = createBotPlatformClient({ baseUrl: fake.baseUrl, token: TOKEN, timeoutMs: 200 });
    fake.failNext('PUT /subscriber/set-user-field-by-name', { hang: true });
    const timeout = await impatient.setUserFieldByName('f1u1', 'city', 'x').catch((e: unknown) => e);
    expect(timeout).toMatchObject({ kind: 'timeout', message: 'Bot platform did not answer within 0.2 s' });

    fake.failNext('PUT /subscriber/set-user-fields-by-name', { status: 422, body: { message: `no ${TOKEN}` } });
    const [outcome] = await client.setUserFieldsByName('f1u1', [{ name: 'city', value: 'x' }]);
    expect(outcome.error).toMatchObject({ kind: 'rejected', status: 422, message: 'Bot platform rejected setting user fields (HTTP 422): no [redacted]' });

    for (const err of [unauthorized, timeout, outcome.error]) {
      expect(inspect(err, { depth: 10 })).not.toMatch(/SECRET/);
    }
  });
});
