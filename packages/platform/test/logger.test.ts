import { Writable } from 'node:stream';
import { describe, expect, it } from '@jest/globals';
import winston from 'winston';
import { createLogger } from '../src/logger.js';

/** The service logger, its Console transport swapped for a buffer: the formatted lines as written. */
function capture(level = 'debug'): { logger: winston.Logger; lines: () => Record<string, unknown>[] } {
  const logger = createLogger('test', level);
  let text = '';
  logger.clear().add(
    new winston.transports.Stream({
      stream: new Writable({
        write(chunk: Buffer, _enc, done) {
          text += chunk.toString();
          done();
        },
      }),
    }),
  );
  return { logger, lines: () => text.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe('createLogger', () => {
  it('blanks secret-named fields at any depth and keeps counts and ids', () => {
    const { logger, lines } = capture();
    logger.info('call', {
      token: 't-1',
      platformToken: 't-2',
      headers: { authorization: 'Bearer t-3', 'x-api-key': 'gk_4' },
      account: { webhook_secret: 's-5', apiKey: 'k-6', llmKey: 'k-7', password: 'p-8', key: 'k-9' },
      usage: { llm_tokens: 42, input_tokens: 7 },
      keyId: 'key_1',
      requestId: 'req-1',
    });
    const [line] = lines();
    const text = JSON.stringify(line);
    for (const secret of ['t-1', 't-2', 't-3', 'gk_4', 's-5', 'k-6', 'k-7', 'p-8', 'k-9']) expect(text).not.toContain(secret);
    expect(line).toMatchObject({ message: 'call', service: 'test', usage: { llm_tokens: 42, input_tokens: 7 }, keyId: 'key_1', requestId: 'req-1' });
    expect(line.platformToken).toBe('[redacted]');
  });

  it('drops lines below its level before formatting them, and follows a level changed at run time', () => {
    const { logger, lines } = capture('warn');
    let formatted = 0;
    const counted = { toJSON: () => (formatted++, 'x') };
    logger.info('skipped', { counted });
    logger.debug('skipped too', { counted });
    logger.child({ requestId: 'r' }).info('skipped as a child', { counted });
    logger.warn('kept');
    expect(lines().map((l) => l.message)).toEqual(['kept']);
    expect(formatted).toBe(0);
    logger.level = 'info';
    logger.info('now kept');
    expect(lines().map((l) => l.message)).toEqual(['kept', 'now kept']);
  });
});
