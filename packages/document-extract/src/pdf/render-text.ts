import { pipeTable } from '../markup/pipe-table.js';
import { FORM_ROLE } from './form-fields.js';
import { BULLET, NUMBERED } from './list-markers.js';
import type { TextBlock, TextLine } from './page-layout.js';

/** Sizes within this many points are one size (rounding in producers, scaling). */
const SIZE_STEP = 0.5;
/** A heading is at least this much larger than the body text. */
const HEADING_RATIO = 1.15;
const MAX_HEADING_LEVEL = 4;
const MAX_HEADING_CHARS = 200;
const MAX_BOLD_HEADING_CHARS = 120;


const roundSize = (size: number) => Math.round(size / SIZE_STEP) * SIZE_STEP;

/** Joins lines, mending words hyphenated across a line end ("inter-" + "preter"). */
function joinLines(lines: string[], separator: string): string {
  let out = '';
  for (const line of lines) {
    if (!out) out = line;
    else if (/\p{L}-$/u.test(out) && /^\p{Ll}/u.test(line)) out = out.slice(0, -1) + line;
    // Before a capital the hyphen belongs to the word ("Trace-" + "Monkey").
    else if (/\p{L}-$/u.test(out) && /^\p{Lu}/u.test(line)) out += line;
    else out += separator + line;
  }
  return out;
}

export function plainBlock(block: TextBlock): string {
  return joinLines(
    block.map((l) => l.text),
    '\n',
  );
}

/** Heading level per structure role of a tagged PDF. */
function roleLevel(role: string | undefined): number | undefined {
  if (!role) return undefined;
  if (role === 'Title') return 1;
  if (role === 'H') return 2;
  const m = /^H([1-6])$/.exec(role);
  return m ? Math.min(MAX_HEADING_LEVEL, Number(m[1])) : undefined;
}

const looksLikeHeading = (block: TextBlock) => {
  if (block[0].table || block.some((l) => l.monospace || l.framed)) return false;
  const text = block.map((l) => l.text).join(' ');
  return block.length <= 3 && text.length <= MAX_HEADING_CHARS && (text.match(/\p{L}/gu) ?? []).length >= 2 && block[0].role !== FORM_ROLE;
};

/** A bold heading at the body's size: one or two bold lines that read as a title, not a bold lead-in or list item. */
const boldHeading = (block: TextBlock) =>
  block.length <= 2 && block.every((l) => l.bold) && !BULLET.test(block[0].text) && !/[.,;]$/.test(block[block.length - 1].text) && block.map((l) => l.text).join(' ').length <= MAX_BOLD_HEADING_CHARS;

/**
 * Decides heading levels for a whole document. A tagged PDF's structure roles (H1-H6) are used
 * when it has any; otherwise font sizes are ranked: the body size is the most common size by
 * characters (tables and code left out), short blocks clearly larger than it are headings, and so
 * are short bold blocks at least its size; their sizes become levels 1-4, largest first.
 */
export function headingLevels(pages: TextBlock[][]): (block: TextBlock) => number | undefined {
  const blocks = pages.flat();
  if (blocks.some((b) => roleLevel(b[0].role) !== undefined)) {
    return (block) => (looksLikeHeading(block) ? roleLevel(block[0].role) : undefined);
  }
  const chars = new Map<number, number>();
  for (const line of blocks.flat()) {
    if (line.role === FORM_ROLE || line.size <= 0 || line.table || line.monospace) continue;
    const size = roundSize(line.size);
    chars.set(size, (chars.get(size) ?? 0) + line.text.length);
  }
  let body = 0;
  let most = -1;
  for (const [size, n] of chars) if (n > most) [body, most] = [size, n];
  const headingSize = (block: TextBlock) => {
    if (!looksLikeHeading(block)) return undefined;
    const size = roundSize(block[0].size);
    if (size >= body * HEADING_RATIO && size >= body + 1) return size;
    return size >= body && boldHeading(block) ? size : undefined;
  };
  const sizes = [...new Set(blocks.map(headingSize).filter((s): s is number => s !== undefined))].sort((a, b) => b - a);
  const levels = new Map(sizes.map((s, i) => [s, Math.min(MAX_HEADING_LEVEL, i + 1)]));
  return (block) => {
    const size = headingSize(block);
    return size === undefined ? undefined : levels.get(size);
  };
}

/** Headings in a row, with no text between, past which they are not headings (a cover, a figure's labels, code in a large font). */
const HEADINGS_IN_A_ROW = 4;

/**
 * Markdown of a page's blocks. A heading set over two or more blocks (its lines parted by the
 * layout: a title broken over lines, a centred line) is written as one: blocks of one level that
 * follow each other within about a line's step. Four headings or more in a row with no text
 * between are not a document's outline but a cover, a figure or code in large type: only the
 * first of their highest level stays a heading.
 */
export function markdownPage(blocks: TextBlock[], level: (block: TextBlock) => number | undefined): string {
  const items: Array<{ block: TextBlock; level: number | undefined }> = [];
  for (const block of blocks) {
    const l = level(block);
    const previous = items[items.length - 1];
    const last = previous?.block[previous.block.length - 1];
    if (l && previous?.level === l && last && block[0].y > last.y && block[0].y - last.y <= block[0].size * 1.8) previous.block = [...previous.block, ...block];
    else items.push({ block, level: l });
  }
  for (let i = 0; i < items.length; ) {
    let j = i;
    while (j < items.length && items[j].level) j++;
    if (j - i >= HEADINGS_IN_A_ROW) {
      const run = items.slice(i, j);
      const top = Math.min(...run.map((item) => item.level!));
      const kept = run.find((item) => item.level === top);
      for (const item of run) if (item !== kept) item.level = undefined;
    }
    i = Math.max(j, i + 1);
  }
  return items.map(({ block, level: l }) => (l ? `${'#'.repeat(l)} ${block.map((line) => line.text).join(' ')}` : markdownBlock(block, undefined))).join('\n\n');
}

function listItems(lines: TextLine[]): string[] | null {
  const items: string[][] = [];
  const lead: string[] = [];
  for (const line of lines) {
    const bullet = BULLET.exec(line.text);
    const number = NUMBERED.exec(line.text);
    if (bullet) items.push([`- ${line.text.slice(bullet[0].length)}`]);
    // Numbers become markdown's "1." marker; a letter marker ("a)", "(b)") has no markdown form and
    // may not be a marker at all ("(c) 2021" is a copyright line), so its line stays as written.
    else if (number) items.push([number[1] !== undefined ? `${number[1]}. ${line.text.slice(number[0].length)}` : line.text]);
    else if (items.length) items[items.length - 1].push(line.text);
    else lead.push(line.text);
  }
  if (!items.length) return null;
  return [...(lead.length ? [joinLines(lead, ' ')] : []), ...items.map((item) => joinLines(item, ' '))];
}

/** Markdown of one block: a table, a heading, a list, or a reflowed paragraph. */
export function markdownBlock(block: TextBlock, level: number | undefined): string {
  if (block[0].table) return pipeTable(block[0].table.rows);
  if (level) return `${'#'.repeat(level)} ${block.map((l) => l.text).join(' ')}`;
  const items = listItems(block);
  if (items) return items.join('\n');
  return joinLines(
    block.map((l) => l.text),
    ' ',
  );
}
