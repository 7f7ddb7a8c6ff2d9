import { describe, expect, it } from '@jest/globals';
import type { TextLine } from '../src/pdf/page-layout.js';
import { markdownBlock, plainBlock } from '../src/pdf/render-text.js';

const lines = (...texts: string[]): TextLine[] => texts.map((text, i) => ({ text, x: 72, right: 400, y: 700 - i * 14, size: 11 }));

describe('PDF markdown list items', () => {
  it('writes numbered items with markdown\'s "1." marker', () => {
    expect(markdownBlock(lines('1) Install', '2. Run it'), undefined)).toBe('1. Install\n2. Run it');
  });

  it('keeps a copyright line as written instead of turning "(c)" into a "c." list marker', () => {
    expect(markdownBlock(lines('(c) 2021 Acme Corporation'), undefined)).toBe('(c) 2021 Acme Corporation');
    expect(markdownBlock(lines('Copyright notice', '(c) 2021 Acme'), undefined)).toBe('Copyright notice\n(c) 2021 Acme');
    expect(plainBlock(lines('(c) 2021 Acme Corporation'))).toBe('(c) 2021 Acme Corporation');
  });

  it('keeps lettered items on their own lines with their letters as written', () => {
    expect(markdownBlock(lines('(a) first', 'continued', 'b) second'), undefined)).toBe('(a) first continued\nb) second');
  });
});
