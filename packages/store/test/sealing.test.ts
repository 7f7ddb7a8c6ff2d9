import { expect, it } from '@jest/globals';
import { Sealer } from '../src/sealing.js';

it('round-trips, never shows the plain text, and refuses tampering or the wrong purpose', () => {
  const sealer = new Sealer('a-master-secret-of-enough-length', 'llm-keys');
  const sealed = sealer.seal('sk-ant-very-secret');
  expect(sealed).not.toContain('very-secret');
  expect(sealer.open(sealed)).toBe('sk-ant-very-secret');
  expect(sealer.seal('same')).not.toBe(sealer.seal('same'));
  const parts = sealed.split('.');
  parts[3] = Buffer.from('tampered').toString('base64url');
  expect(() => sealer.open(parts.join('.'))).toThrow();
  expect(() => new Sealer('a-master-secret-of-enough-length', 'bot-token').open(sealed)).toThrow();
});
