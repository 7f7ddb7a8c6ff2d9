import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startFakeBotPlatform, type FakeBotPlatform } from '../../../tests/fakes/bot-platform.js';

// The stand-in is used by the end-to-end tests too, so the parts of its contract that tests rely
// on are checked here directly, over plain HTTP.
const TOKEN = 'fake-check-token';
const JSON_HEADERS = { accept: 'application/json', 'content-type': 'application/json' };

let fake: FakeBotPlatform;
beforeAll(async () => {
  fake = await startFakeBotPlatform({ tokens: [TOKEN], subscribers: [{ phone: '+5215512345678' }], rateLimit: 3, rateWindowSeconds: 86_400 });
});
afterAll(() => fake.close());

const lookup = (headers: Record<string, string>) => fetch(`${fake.baseUrl}/subscriber/get-info-by-user-id?user_id=5215512345678`, { headers });

describe('fake bot platform', () => {
  it('checks the token and the JSON headers before playing an injected fault', async () => {
    fake.failNext('GET /subscriber/get-info-by-user-id', { status: 500 }, 1);
    const stranger = await lookup({ ...JSON_HEADERS, authorization: 'Bearer nobody' });
    expect(stranger.status).toBe(401);
    expect(await stranger.json()).toEqual({ message: 'Unauthenticated.' });
    const noAccept = await lookup({ 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` });
    expect(noAccept.status).toBe(406);
    // The fault is still queued for the first request that passes those checks.
    expect((await lookup({ ...JSON_HEADERS, authorization: `Bearer ${TOKEN}` })).status).toBe(500);
  });

  it('plays an HTML error page, as a proxy in front of the API would', async () => {
    fake.failNext('GET /subscriber/get-info-by-user-id', { status: 502, html: true }, 1);
    const res = await lookup({ ...JSON_HEADERS, authorization: `Bearer ${TOKEN}` });
    expect(res.status).toBe(502);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await res.text()).toMatch(/^<!DOCTYPE html>[\s\S]*502 Bad Gateway/);
  });

  it('counts requests per token per window, reports them in x-ratelimit-* headers, and answers 429 with retry-after when used up', async () => {
    // Two counted so far (the 500 and the 502; the 401 and the 406 were refused before counting).
    const last = await lookup({ ...JSON_HEADERS, authorization: `Bearer ${TOKEN}` });
    expect(last.status).toBe(200);
    expect(last.headers.get('x-ratelimit-remaining')).toBe('0');
    const over = await lookup({ ...JSON_HEADERS, authorization: `Bearer ${TOKEN}` });
    const windowEnd = (Math.floor(Date.now() / 86_400_000) + 1) * 86_400;
    expect(over.status).toBe(429);
    expect(await over.json()).toEqual({ message: 'Too Many Attempts.' });
    expect(over.headers.get('x-ratelimit-limit')).toBe('3');
    expect(over.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(over.headers.get('x-ratelimit-reset'))).toBe(windowEnd);
    const retryAfter = Number(over.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(Math.abs(retryAfter - (windowEnd - Date.now() / 1000))).toBeLessThanOrEqual(2);
  });
});
