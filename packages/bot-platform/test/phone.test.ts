import { describe, expect, it } from '@jest/globals';
import { normalizePhone, parseBotWebhookRequest } from '../src/index.js';

describe('normalizePhone', () => {
  it('brings every usual way of writing a number to the same digits', () => {
    for (const written of ['+33 6 12 34 56 78', '33-6-12-34-56-78', '+33 (6) 12.34.56.78', '33612345678', ' +33612345678 ']) {
      expect(normalizePhone(written)).toBe('33612345678');
    }
  });

  it('rejects numbers that are too short, too long or not numbers', () => {
    for (const bad of ['1234567', '+1234567890123456', '33612abc678', '++33612345678', '33+612345678', '', '+']) {
      expect(normalizePhone(bad)).toBeNull();
    }
    expect(normalizePhone('12345678')).toBe('12345678');
    expect(normalizePhone('123456789012345')).toBe('123456789012345');
  });
});

describe('parseBotWebhookRequest', () => {
  it('accepts a valid body and refuses field values that are not strings', () => {
    expect(parseBotWebhookRequest({ phone_number: '+33 612345678', flow_ns: 'f1s2', user_fields: { age: '42', city: 'Lyon' } })).toEqual({
      ok: true,
      input: { phone_number: '+33 612345678', flow_ns: 'f1s2', user_fields: { age: '42', city: 'Lyon' } },
    });
    const numeric = parseBotWebhookRequest({ phone_number: '+33 612345678', flow_ns: 'f1s2', user_fields: { age: 42, vip: true } });
    expect(numeric.ok).toBe(false);
    if (!numeric.ok) expect(numeric.details).toEqual(['user_fields.age must be a string', 'user_fields.vip must be a string']);
  });

  it('names every problem of an invalid body', () => {
    const parsed = parseBotWebhookRequest({ phone_number: '123', user_fields: { a: { nested: 1 } } });
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.details).toEqual(['phone_number must be 8 to 15 digits with the country code', 'flow_ns is required', 'user_fields.a must be a string']);
    expect(parseBotWebhookRequest('nope')).toMatchObject({ ok: false });
  });
});
