import type { TextRun } from './text-runs.js';

/** A gap wider than this share of the font size is a space between words. */
const SPACE_GAP = 0.15;

/** Average advance of one character of a run. */
const charWidth = (run: TextRun) => (run.str.length ? run.width / run.str.length : 0);

/**
 * Joins the runs of one line left to right, with a space wherever the gap between two runs is
 * wider than a fraction of the font size. Text drawn again over itself (fake bold: the same
 * glyphs shifted by a fraction of a point) is written once: the part of a run that lands on text
 * already placed, and repeats its last characters, is dropped.
 */
export function assembleLine(runs: TextRun[], { rightToLeft = false } = {}): string {
  // A right-to-left line is read from its right end: assembled mirrored.
  const placed = rightToLeft ? runs.map((r) => ({ ...r, x: -(r.x + r.width) })) : runs;
  const sorted = [...placed].sort((a, b) => a.x - b.x);
  let text = '';
  let end = -Infinity;
  let previous: TextRun | null = null;
  for (const run of sorted) {
    let str = run.str;
    const cw = charWidth(run);
    const gap = run.x - end;
    if (text && cw > 0 && gap < -cw * 0.5) {
      // The run starts `covered` characters back from the end of the placed text; if it repeats
      // what is there (give or take an inserted space), only its overhang is new.
      const at = text.length - Math.round(-gap / cw);
      for (const start of [at, at - 1, at + 1]) {
        const overlap = Math.min(str.length, text.length - start);
        if (start >= 0 && overlap > 0 && text.slice(start, start + overlap) === str.slice(0, overlap)) {
          str = str.slice(overlap);
          break;
        }
      }
      if (!str) {
        end = Math.max(end, run.x + run.width);
        continue;
      }
    } else if (text && (gap > run.size * SPACE_GAP || (rightToLeft && previous && Boolean(previous.rtl) !== Boolean(run.rtl))) && !text.endsWith(' ') && !str.startsWith(' ')) {
      // In a right-to-left line, runs of the two directions side by side are words apart (producers draw no space there).
      text += ' ';
    }
    previous = run;
    text += str;
    end = Math.max(end, run.x + run.width);
  }
  // Control characters (C0 but tab and newline, DEL, C1) come from fonts without a usable
  // Unicode mapping: a byte code passed through as is, which no text means.
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '').replace(/\s+/g, ' ').trim();
}
