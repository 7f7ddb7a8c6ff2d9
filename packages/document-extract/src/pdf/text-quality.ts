export type TextVerdict = 'good' | 'doubtful' | 'none' | 'unreadable';

/** Fewer visible characters than this: the page has no real text layer (Tika's threshold). */
const MIN_CHARS = 10;

const SPACE = 0;
const ALPHANUMERIC = 1;
const OTHER = 2;
type CharClass = typeof SPACE | typeof ALPHANUMERIC | typeof OTHER;

const ASCII_CLASSES = Uint8Array.from({ length: 128 }, (_, c) => {
  const ch = String.fromCharCode(c);
  return /\s/.test(ch) ? SPACE : /[A-Za-z0-9]/.test(ch) ? ALPHANUMERIC : OTHER;
});
const otherClasses = new Map<number, CharClass>();

/** Whitespace (as `\s`), a letter or digit (`\p{L}`, `\p{N}`), or anything else. */
function classOf(codePoint: number): CharClass {
  if (codePoint < 128) return ASCII_CLASSES[codePoint] as CharClass;
  let cls = otherClasses.get(codePoint);
  if (cls === undefined) {
    const ch = String.fromCodePoint(codePoint);
    cls = /\s/.test(ch) ? SPACE : /[\p{L}\p{N}]/u.test(ch) ? ALPHANUMERIC : OTHER;
    if (otherClasses.size < 65_536) otherClasses.set(codePoint, cls);
  }
  return cls;
}

/** Characters with no usable Unicode mapping: control characters and U+FFFD. */
const isUnmapped = (codePoint: number) => codePoint <= 0x1f || codePoint === 0x7f || codePoint === 0xfffd;

const WORD_LIKE = /^[("'“‘[]?(\p{Lu}?\p{Ll}+|\p{Lu}+|\p{N}+([.,:/-]\p{N}+)*)[)"'”’\].,;:!?]*$/u;

/**
 * Judges a page's extracted text with Tika's and Marker's thresholds:
 * - none: at most 10 visible characters (a scan, a picture);
 * - unreadable: more than max(10, 10 %) characters with no usable Unicode mapping (control
 *   characters, U+FFFD), or letters and digits under 30 % of the visible characters, or mostly
 *   spaces: a font without a Unicode map, as the broken-encoding pages of real files show;
 * - doubtful: readable, but with few word-like tokens, as invisible OCR layers of poor scans
 *   are: worth checking whether all of the text is invisible;
 * - good otherwise.
 * Dot leaders and rules ("....", "____": a character other than a letter, digit or space three
 * times or more in a row) are not words, but not garbage either: they are not counted.
 * The counting is one pass over the characters: it runs on every page of every PDF, and the
 * regular expressions it replaces (one array entry per matched character) took 4 % of a text
 * PDF's extraction.
 */
export function judgeText(strings: string[]): TextVerdict {
  let visible = 0; // UTF-16 code units, as String#length counts them
  let unmapped = 0;
  let alphanumeric = 0;
  let spaces = 0;
  // The current run of one repeated "other" character, counted once the run ends.
  let runChar = -1;
  let runLength = 0;
  let runUnits = 0;
  const endRun = () => {
    if (runLength > 0 && runLength < 3) {
      visible += runUnits;
      if (isUnmapped(runChar)) unmapped += runLength;
    }
    runChar = -1;
    runLength = 0;
    runUnits = 0;
  };
  for (const s of strings) {
    for (let i = 0; i < s.length; i++) {
      const codePoint = s.codePointAt(i)!;
      const units = codePoint > 0xffff ? 2 : 1;
      if (units === 2) i++;
      const cls = classOf(codePoint);
      if (cls === OTHER) {
        if (codePoint === runChar) {
          runLength++;
          runUnits += units;
          continue;
        }
        endRun();
        runChar = codePoint;
        runLength = 1;
        runUnits = units;
        continue;
      }
      endRun();
      if (cls === SPACE) {
        if (codePoint === 0x20) spaces++;
      } else {
        visible += units;
        alphanumeric++;
      }
    }
  }
  endRun();
  if (visible <= MIN_CHARS) return 'none';
  if (unmapped > Math.max(10, visible * 0.1)) return 'unreadable';
  if (alphanumeric < visible * 0.3) return 'unreadable';
  if (spaces / (spaces + visible) > 0.7) return 'unreadable';
  let tokens = 0;
  let wordLike = 0;
  for (const s of strings) {
    for (const token of s.split(/\s+/)) {
      if (token.length === 0) continue;
      tokens++;
      if (WORD_LIKE.test(token)) wordLike++;
    }
  }
  return wordLike < tokens * 0.5 ? 'doubtful' : 'good';
}
