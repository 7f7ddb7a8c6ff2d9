import type { TextRun } from './text-runs.js';

/** The annotation data fields we read (pdf.js gives a loosely typed object). */
interface AnnotationData {
  subtype?: string;
  fieldType?: string;
  fieldValue?: unknown;
  textContent?: string[];
  checkBox?: boolean;
  radioButton?: boolean;
  buttonValue?: string;
  exportValue?: string;
  options?: Array<{ exportValue?: string; displayValue?: string }>;
  rect?: number[];
  hidden?: boolean;
  noView?: boolean;
}

/** Role given to field values: their size comes from the field's box, so it says nothing about headings. */
export const FORM_ROLE = 'Form';
const CHECKED = '☒';
const SELECTED = '◉';

const apply = (m: number[], x: number, y: number): [number, number] => [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]];

function values(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(String);
  return value === undefined || value === null ? [] : [String(value)];
}

/** The text a filled field or a text-box annotation shows, one entry per line. */
function shownText(a: AnnotationData): string[] {
  if (a.subtype === 'FreeText') return a.textContent ?? [];
  if (a.subtype !== 'Widget') return [];
  switch (a.fieldType) {
    case 'Tx':
      return a.textContent?.length ? a.textContent : values(a.fieldValue).flatMap((v) => v.split(/\r\n|\r|\n/));
    case 'Ch': {
      // Choice values are export values; show what the user picked as it was displayed.
      const shown = values(a.fieldValue).map((v) => a.options?.find((o) => o.exportValue === v)?.displayValue?.trim() || v);
      return shown.length ? [shown.join(', ')] : [];
    }
    case 'Btn': {
      const value = values(a.fieldValue)[0];
      if (a.checkBox) return value && value !== 'Off' && (!a.exportValue || value === a.exportValue) ? [CHECKED] : [];
      if (a.radioButton) return value && value === a.buttonValue ? [SELECTED] : [];
      return [];
    }
    default:
      return [];
  }
}

/**
 * Filled form fields and text-box annotations as runs placed where they show, so that they read
 * as static text in the page's flow ("First name: Lucía"). pdf.js leaves them out of the text
 * content; unchecked boxes and empty fields add nothing.
 */
export function formRuns(viewportTransform: number[], annotations: AnnotationData[]): TextRun[] {
  const runs: TextRun[] = [];
  for (const a of annotations) {
    if (a.hidden || a.noView || !a.rect) continue;
    const lines = shownText(a).map((l) => l.trim());
    if (!lines.some((l) => l.length > 0)) continue;
    const [x1, y1] = apply(viewportTransform, a.rect[0], a.rect[3]);
    const [x2, y2] = apply(viewportTransform, a.rect[2], a.rect[1]);
    const left = Math.min(x1, x2);
    const top = Math.min(y1, y2);
    const width = Math.abs(x2 - x1);
    const height = Math.abs(y2 - y1);
    // One line fills a single-line field; more lines stack from the top at a readable size.
    const size = Math.max(4, Math.min(12, (lines.length === 1 ? height : height / lines.length) * 0.75));
    lines.forEach((line, i) => {
      if (!line) return;
      const baseline = lines.length === 1 ? top + height / 2 + size * 0.35 : top + size * 1.2 * (i + 1);
      // A box mark fills its box; text is estimated at half an em a character.
      const runWidth = line === CHECKED || line === SELECTED ? width : Math.min(width, line.length * size * 0.5);
      runs.push({ str: line, x: left + 2, y: baseline, width: runWidth, size, role: FORM_ROLE });
    });
  }
  return runs;
}
