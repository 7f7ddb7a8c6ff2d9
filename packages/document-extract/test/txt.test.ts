import { describe, expect, it } from '@jest/globals';
import { extractTxt } from '../src/txt/index.js';
import { cpuMs } from '../../../tests/support/cpu-time.js';
import { failure } from './document-failure.js';

const plain = { output: 'plain' } as const;
const markdown = { output: 'markdown' } as const;
const utf8 = (value: string): Buffer => Buffer.from(value, 'utf8');

describe('txt decoding', () => {
  it('honours UTF-8, UTF-16LE and UTF-16BE byte order marks', async () => {
    const sample = 'Grüße, €uro — ✓';
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(sample, 'utf16le')]);
    const be = Buffer.from(le).swap16();
    const withBom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), utf8(sample)]);
    expect((await extractTxt(withBom, plain)).pages).toEqual([sample]);
    expect(await extractTxt(le, plain)).toMatchObject({ pages: [sample], notes: ['decoded as UTF-16LE (byte order mark)'], encoding: 'utf-16le' });
    expect(await extractTxt(be, plain)).toMatchObject({ pages: [sample], notes: ['decoded as UTF-16BE (byte order mark)'], encoding: 'utf-16be' });
  });

  it('uses UTF-8 when valid, else windows-1252 (Windows quotes and euro, not C1 controls)', async () => {
    expect(await extractTxt(utf8('café'), plain)).toMatchObject({ pages: ['café'], notes: ['decoded as UTF-8'], encoding: 'utf-8' });
    // 0x93/0x94 are curly quotes and 0x80 the euro sign in windows-1252; ISO-8859-1 has controls there.
    const latin = Buffer.from([0x93, 0x43, 0x61, 0x66, 0xe9, 0x94, 0x20, 0x80, 0x35]);
    const result = await extractTxt(latin, plain);
    expect(result.pages).toEqual(['“Café” €5']);
    expect(result.notes[0]).toMatch(/^decoded as windows-1252/);
    // The decoder is part of the result (the API's `encoding` field), not only a note.
    expect(result.encoding).toBe('windows-1252');
  });

  it('removes control characters but keeps tabs, line ends and form feeds', async () => {
    // Padded with prose: a handful of controls in a short sample would rightly look binary.
    const prose = ' Plain words keep the share of control characters low.'.repeat(4);
    const result = await extractTxt(utf8(`a\x01b\tc\r\nd\re\x7f\u0085f\fg\x1b[1mbold\x1b[0m h\x08h_\x08u${prose}`), plain);
    expect(result.pages).toEqual(['ab\tc\nd\nef', `gbold hu${prose}`]);
    expect(result.notes[1]).toMatch(/removed \d+ control characters/);
  });

  it('splits pages at every form feed, a trailing one included', async () => {
    expect((await extractTxt(utf8('one\n\ftwo\n\f'), plain)).pages).toEqual(['one\n', 'two\n', '']);
  });
});

describe('txt refusals', () => {
  it('refuses binary data: NUL bytes, many control characters, PNG bytes', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52]);
    const controls = Buffer.from(Array.from({ length: 200 }, (_, i) => (i % 5 === 0 ? 0x01 : 0x61)));
    for (const sample of [png, utf8('text\0more'), controls]) {
      const error = await failure(extractTxt(sample, plain));
      expect(error.code).toBe('400-001');
      expect(error.details[0]).toMatch(/binary file sent as txt/);
    }
  });

  it('refuses more than 1,000,000 lines quickly', async () => {
    const started = cpuMs();
    const error = await failure(extractTxt(Buffer.alloc(1_000_001, 0x0a), plain));
    expect(error).toMatchObject({ code: '400-001' });
    expect(error.details[0]).toMatch(/more than 1,000,000 lines/);
    expect(cpuMs() - started).toBeLessThan(2000);
    // Exactly the limit is fine.
    const atLimit = Buffer.concat([Buffer.alloc(999_999, 0x0a), utf8('last')]);
    expect((await extractTxt(atLimit, plain)).pages).toHaveLength(1);
  });

  it('refuses a line longer than 1 MB, counted in bytes of the file', async () => {
    const error = await failure(extractTxt(Buffer.alloc(1024 * 1024 + 1, 0x61), plain));
    expect(error).toMatchObject({ code: '400-001' });
    expect(error.details[0]).toMatch(/line 1 is longer than 1 MB/);
    // 400,000 three-byte characters: under a million characters, but 1.2 MB.
    const wide = await failure(extractTxt(Buffer.concat([utf8('ok\n'), utf8('€'.repeat(400_000))]), plain));
    expect(wide.details[0]).toMatch(/line 2 is longer than 1 MB/);
    expect((await extractTxt(Buffer.alloc(1024 * 1024, 0x61), plain)).pages[0]).toHaveLength(1024 * 1024);
  });
});

describe('txt markdown rules', () => {
  it('makes colon lines H3 and short paragraph openers H2', async () => {
    const source = ['Introduction', 'This paragraph follows a short title line and', 'goes on for a while.', '', 'Requirements:', 'the list of things we need', '', 'A long first line that is certainly more than fifty characters long', 'and its continuation.'].join('\n');
    const { pages } = await extractTxt(utf8(source), markdown);
    expect(pages[0]).toBe(
      ['## Introduction', 'This paragraph follows a short title line and', 'goes on for a while.', '', '### Requirements:', 'the list of things we need', '', 'A long first line that is certainly more than fifty characters long', 'and its continuation.'].join('\n'),
    );
  });

  it('applies the colon rule on any line, the H2 rule only at a paragraph start', async () => {
    const { pages } = await extractTxt(utf8('Body text starts here and is long enough to stay plain\nshort line\nthe items are:\n- one'), markdown);
    expect(pages[0]).toBe('Body text starts here and is long enough to stay plain\nshort line\n### the items are:\n- one');
  });

  it('follows the SPEC exactly: every short paragraph opener is H2, sentences and salutations too', async () => {
    const { pages } = await extractTxt(utf8('Thank you.\n\nDear Anna,\n\n----\n\n  Summary  \n\nA line of exactly fifty characters not under fifty\nsecond line'), markdown);
    expect(pages[0]).toBe('## Thank you.\n\n## Dear Anna,\n\n## ----\n\n## Summary\n\nA line of exactly fifty characters not under fifty\nsecond line');
    expect('A line of exactly fifty characters not under fifty'.length).toBe(50);
  });

  it('keeps form feeds as page breaks in markdown too', async () => {
    const { pages } = await extractTxt(utf8('First\nbody text\fSecond\nmore text'), markdown);
    expect(pages).toEqual(['## First\nbody text', '## Second\nmore text']);
  });
});
