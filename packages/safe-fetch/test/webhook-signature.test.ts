import { createHmac } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { signWebhook, verifyWebhookSignature } from '../src/index.js';

const SECRET = 'whsec_test';
const BODY = '{"request_id":"r1","status":"completed"}';
const T = 1_700_000_000;

describe('webhook signatures', () => {
  it('signs "<t>.<raw body>" with HMAC-SHA256, as receivers recompute it', () => {
    const header = signWebhook(SECRET, BODY, T);
    const expected = createHmac('sha256', SECRET).update(`${T}.${BODY}`).digest('hex');
    expect(header).toBe(`t=${T},v1=${expected}`);
  });

  it('round-trips within the tolerance and refuses tampering, other secrets and stale times', () => {
    const header = signWebhook(SECRET, BODY, T);
    expect(verifyWebhookSignature(SECRET, BODY, header, { now: T + 100 })).toBe(true);
    expect(verifyWebhookSignature(SECRET, BODY, header, { now: T - 300 })).toBe(true);
    expect(verifyWebhookSignature(SECRET, BODY.replace('completed', 'failed'), header, { now: T })).toBe(false);
    expect(verifyWebhookSignature(SECRET, `${BODY} `, header, { now: T })).toBe(false);
    expect(verifyWebhookSignature('whsec_other', BODY, header, { now: T })).toBe(false);
    expect(verifyWebhookSignature(SECRET, BODY, header, { now: T + 301 })).toBe(false);
    expect(verifyWebhookSignature(SECRET, BODY, header, { now: T + 1000, toleranceSeconds: 1000 })).toBe(true);
    // Moving the signature to another timestamp breaks it: the time is part of what is signed.
    expect(verifyWebhookSignature(SECRET, BODY, header.replace(`t=${T}`, `t=${T + 1}`), { now: T })).toBe(false);
  });

  it('uses the clock when no time is given', () => {
    const now = Math.floor(Date.now() / 1000);
    expect(verifyWebhookSignature(SECRET, BODY, signWebhook(SECRET, BODY, now))).toBe(true);
    expect(verifyWebhookSignature(SECRET, BODY, signWebhook(SECRET, BODY, now - 3600))).toBe(false);
  });

  it('accepts any of several v1 values (secret rotation) and refuses malformed headers', () => {
    const mine = signWebhook(SECRET, BODY, T).split('v1=')[1];
    const other = signWebhook('whsec_old', BODY, T).split('v1=')[1];
    expect(verifyWebhookSignature(SECRET, BODY, `t=${T},v1=${other},v1=${mine}`, { now: T })).toBe(true);
    for (const header of [undefined, '', 'garbage', `t=${T}`, `v1=${mine}`, `t=abc,v1=${mine}`, `t=${T},v1=${mine.slice(0, 63)}`, `t=${T},v1=${'z'.repeat(64)}`, `t=${T},v0=${mine}`]) {
      expect(verifyWebhookSignature(SECRET, BODY, header, { now: T })).toBe(false);
    }
  });

  it('refuses timestamps that are not whole Unix seconds', () => {
    expect(() => signWebhook(SECRET, BODY, Date.now() / 1000)).toThrow(RangeError);
  });
});
