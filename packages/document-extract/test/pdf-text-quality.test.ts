import { describe, expect, it } from '@jest/globals';
import { assembleLine } from '../src/pdf/line-assembly.js';
import { judgeText } from '../src/pdf/text-quality.js';
import { loadPdfJs } from '../src/pdf/open-pdf.js';

describe('judgeText', () => {
  it('calls a page with at most 10 visible characters blank, spaces and dot leaders not counted', () => {
    expect(judgeText(['Page 12'])).toBe('none');
    expect(judgeText(['Contents', ' ', '..........', '4'])).toBe('none');
    // Two dots are not a leader: they count.
    expect(judgeText(['Contents..', '4'])).toBe('good');
  });

  it('calls text without a usable mapping, or mostly symbols, or mostly spaces unreadable', () => {
    expect(judgeText(['\u0001\u0002\u0003\u0004\u0005\u0006\u0007\u0008\u000e\u000f\u0010\u0011 abc'])).toBe('unreadable');
    expect(judgeText(['\ufffd\ufffd \ufffd\ufffd \ufffd\ufffd \ufffd\ufffd \ufffd\ufffd \ufffd\ufffd Hello'])).toBe('unreadable');
    expect(judgeText(['#$%& *+<> =@^| ~{}[ ]!?& ab'])).toBe('unreadable');
    expect(judgeText(['a         b         c         d         e         f         g         h         i         j         k'])).toBe('unreadable');
  });

  it('counts a run of one symbol only when it is shorter than three, across the pieces of a page', () => {
    // "__" + "_" is a run of three: a rule, not garbage.
    expect(judgeText(['Name __', '_ and some words here'])).toBe('good');
  });

  it('calls readable text with few word-like tokens doubtful, and ordinary prose good', () => {
    expect(judgeText(['xQz3 kPw9 tRv2 mNb7 qLs4 zXc8'])).toBe('doubtful');
    expect(judgeText(['The quick brown fox', ' jumps over the lazy dog, 12.5 times.'])).toBe('good');
    // Letters outside the BMP and accented ones are letters.
    expect(judgeText(['Ça déjà vu, 𝔸𝔹ℂ naïve café façade'])).toBe('good');
  });
});

describe('assembleLine', () => {
  const run = (str: string, x: number) => ({ str, x, y: 100, width: str.length * 5, size: 10 });

  it('drops C0 and C1 control characters that a font without a Unicode map passes through, keeping the text around them', () => {
    // U+0085 (NEL) and U+0092 are what a byte code 0x85 or 0x92 of such a font comes out as.
    expect(assembleLine([run('Total\u0092s\u0085', 0), run('\u0001\u001fdue\u009f', 100)])).toBe("Totals due");
    // Tab and newline are white space, not control characters: they separate words.
    expect(assembleLine([run('one\ttwo\nthree', 0)])).toBe('one two three');
    // Latin-1 letters right after the C1 block stay.
    expect(assembleLine([run('\u00a0café\u00ff', 0)])).toBe('café\u00ff');
  });
});

describe('loading pdf.js', () => {
  it('leaves the built-ins its polyfills would replace native (a slower push was ~9 % of a text PDF)', async () => {
    const natives = [Array.prototype.push, JSON.parse, JSON.stringify, Function.prototype.toString];
    const lib = await loadPdfJs();
    expect(typeof lib.getDocument).toBe('function');
    expect([Array.prototype.push, JSON.parse, JSON.stringify, Function.prototype.toString]).toEqual(natives);
    // What core-js adds that Node 20 lacks stays: pdf.js uses it.
    expect(typeof (Promise as unknown as { withResolvers?: unknown }).withResolvers).toBe('function');
  });
});
