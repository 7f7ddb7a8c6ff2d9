export type TextVerdict = 'good' | 'doubtful' | 'none' | 'unreadable';

/** Fewer visible characters than this: the page has no real text layer (Tika's threshold). */
const MIN_CHARS = 10;

/**
 * Judges a page's extracted text with Tika's and Marker's thresholds:
 * - none: at most 10 visible characters (a scan, a picture);
 * - unreadable: more than max(10, 10 %) characters with no usable Unicode mapping (control
 *   characters, U+FFFD), or letters and digits under 30 % of the visible characters, or mostly
 *   spaces: a font without a Unicode map, as the broken-encoding pages of real files show;
 * - doubtful: readable, but with few word-like tokens, as invisible OCR layers of poor scans
 *   are: worth checking whether all of the text is invisible;
 * - good otherwise.
 */
export function judgeText(strings: string[]): TextVerdict {
  // Dot leaders and rules ("....", "____") are not words, but not garbage either.
  const raw = strings.join('').replace(/([^\p{L}\p{N}\s])\1{2,}/gu, '');
  const visible = raw.replace(/\s+/g, '');
  if (visible.length <= MIN_CHARS) return 'none';
  const unmapped = (visible.match(/[\u0000-\u001f\u007f\ufffd]/g) ?? []).length;
  if (unmapped > Math.max(10, visible.length * 0.1)) return 'unreadable';
  const alphanumeric = (visible.match(/[\p{L}\p{N}]/gu) ?? []).length;
  if (alphanumeric < visible.length * 0.3) return 'unreadable';
  const spaces = (raw.match(/ /g) ?? []).length;
  if (spaces / (spaces + visible.length) > 0.7) return 'unreadable';
  const tokens = strings.join(' ').split(/\s+/).filter((t) => t.length > 0);
  const wordLike = tokens.filter((t) => /^[("'“‘[]?(\p{Lu}?\p{Ll}+|\p{Lu}+|\p{N}+([.,:/-]\p{N}+)*)[)"'”’\].,;:!?]*$/u.test(t)).length;
  return wordLike < tokens.length * 0.5 ? 'doubtful' : 'good';
}
