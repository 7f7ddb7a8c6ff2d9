import { expect, it } from '@jest/globals';
import { defaultParseConcurrency, loadParserWorkerConfig } from '../src/config.js';

const required = { REDIS_URL: 'redis://127.0.0.1:6379/0', GLEANER_SECRET: 'config-test-secret-0123456789abcdef' };

it('runs one parse thread fewer than the cores by default, at least one', () => {
  expect(defaultParseConcurrency(1)).toBe(1);
  expect(defaultParseConcurrency(2)).toBe(1);
  expect(defaultParseConcurrency(8)).toBe(7);
  expect(loadParserWorkerConfig(required).PARSER_CONCURRENCY).toBe(defaultParseConcurrency());
  expect(loadParserWorkerConfig({ ...required, PARSER_CONCURRENCY: '2' }).PARSER_CONCURRENCY).toBe(2);
});
