import { describe, expect, it } from '@jest/globals';
import { FetchError, toFetchError, type FetchErrorKind } from '../src/index.js';

function codeError(code: string, message = code): Error {
  return Object.assign(new Error(message), { code });
}

describe('FetchError', () => {
  it.each<[FetchErrorKind, number | undefined, boolean]>([
    ['network', undefined, true],
    ['timeout', undefined, true],
    ['http_status', 500, true],
    ['http_status', 503, true],
    ['http_status', 404, false],
    ['blocked', 503, false],
    ['blocked', 429, false],
    ['invalid_url', undefined, false],
    ['blocked_address', undefined, false],
    ['dns', undefined, false],
    ['too_large', undefined, false],
    ['unsupported_type', undefined, false],
    ['too_many_redirects', undefined, false],
  ])('%s %s is transient: %s', (kind, status, transient) => {
    const err = new FetchError(kind, 'x', status);
    expect(err.transient).toBe(transient);
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('FetchError');
  });

  it('maps socket, DNS and agent errors to kinds', () => {
    expect(toFetchError(codeError('ECONNRESET', 'socket hang up')).kind).toBe('network');
    expect(toFetchError(codeError('ENOTFOUND')).kind).toBe('dns');
    // A resolver outage passes; BullMQ should retry it.
    expect(toFetchError(codeError('EAI_AGAIN')).transient).toBe(true);
    expect(toFetchError(new Error('DNS lookup 10.0.0.1(family:4, host:x) is not allowed. Because, It is private IP address.')).kind).toBe('blocked_address');
    const original = new FetchError('too_large', 'big');
    expect(toFetchError(original)).toBe(original);
    expect(toFetchError(new Error('wrapped', { cause: original }))).toBe(original);
    expect(toFetchError('weird').kind).toBe('network');
  });
});
