import { DocumentError } from '../errors.js';
import { looksBinary } from '../txt/binary-check.js';
import { decodeText } from '../txt/decode-text.js';
import type { ExtractedDocument, ExtractOptions } from '../types.js';
import { cutNotes, renderSheet } from './render-sheets.js';
import { MAX_SHEET_ROWS, SheetGrid, WorkbookBudget } from './sheet-grid.js';

const DELIMITERS = [',', ';', '\t', '|'] as const;
/** Lines looked at to choose the delimiter. */
const SNIFF_LINES = 20;
/** A quoted field longer than this is no field (an unbalanced quote swallowing the file). */
const MAX_FIELD_CHARS = 1024 * 1024;

/**
 * CSV (and TSV, semicolon-separated as spreadsheets in many locales write it): one table, its
 * first row the header, within the sheet limits. The text is decoded as a .txt is (BOM, UTF-8,
 * windows-1252); the delimiter is the one that splits the first lines most consistently.
 * Quoting follows RFC 4180 (a field may hold delimiters, line breaks and "" for a quote).
 */
export async function extractCsv(bytes: Buffer, opts: ExtractOptions): Promise<ExtractedDocument> {
  opts.signal?.throwIfAborted();
  if (looksBinary(bytes)) throw new DocumentError('400-001', 'Binary files are not supported', ['binary file sent as csv: NUL bytes or many control characters in the first 8 KB']);
  const decoded = decodeText(bytes);
  const delimiter = chooseDelimiter(decoded.text);
  const grid = new SheetGrid('', new WorkbookBudget());
  // Reading stops after the sheet's last row: the rest of a 50 MB file would only be dropped.
  if (readCsv(decoded.text, delimiter, MAX_SHEET_ROWS, (row, column, text) => grid.set(row, column, text.trim()))) grid.rowsCut = true;
  const page = renderSheet(grid, opts.output, { heading: false });
  opts.onProgress?.(1, 1);
  const delimiterName = delimiter === '\t' ? 'tab' : delimiter;
  return { kind: 'csv', pages: [page], notes: [decoded.note, `delimiter ${delimiterName}`, ...cutNotes(grid)], ocrPages: 0, encoding: decoded.encoding };
}

/** The delimiter whose field count is the same (and above one) on most of the first lines. */
function chooseDelimiter(text: string): string {
  const lines = text.split(/\r\n|\n|\r/, SNIFF_LINES + 1).slice(0, SNIFF_LINES).filter((line) => line.trim() !== '');
  let best: string = DELIMITERS[0];
  let bestScore = 0;
  for (const delimiter of DELIMITERS) {
    const counts = lines.map((line) => countOutsideQuotes(line, delimiter));
    const first = counts[0] ?? 0;
    if (first === 0) continue;
    const score = counts.filter((count) => count === first).length * 1000 + first;
    if (score > bestScore) {
      best = delimiter;
      bestScore = score;
    }
  }
  return best;
}

function countOutsideQuotes(line: string, delimiter: string): number {
  let count = 0;
  let quoted = false;
  for (const char of line) {
    if (char === '"') quoted = !quoted;
    else if (char === delimiter && !quoted) count++;
  }
  return count;
}

/** RFC 4180 fields, each handed over with its row and column (0-based); true when rows were left after `maxRows`. */
export function readCsv(text: string, delimiter: string, maxRows: number, onField: (row: number, column: number, text: string) => void): boolean {
  let row = 0;
  let column = 0;
  let at = 0;
  const length = text.length;
  while (at <= length) {
    let field: string;
    if (text[at] === '"') {
      // A quoted field: up to the quote that is not doubled.
      let end = at + 1;
      const parts: string[] = [];
      for (;;) {
        const quote = text.indexOf('"', end);
        if (quote === -1 || quote - at > MAX_FIELD_CHARS) {
          throw new DocumentError('400-001', 'The document is damaged', [`the CSV has an unclosed quote in row ${row + 1}`]);
        }
        parts.push(text.slice(end, quote));
        if (text[quote + 1] === '"') {
          parts.push('"');
          end = quote + 2;
          continue;
        }
        end = quote + 1;
        break;
      }
      // Anything between the closing quote and the delimiter is kept, as spreadsheets do.
      const next = nextBreak(text, end, delimiter);
      field = parts.join('') + text.slice(end, next);
      at = next;
    } else {
      const next = nextBreak(text, at, delimiter);
      field = text.slice(at, next);
      at = next;
    }
    onField(row, column, field);
    if (at >= length) break;
    if (text[at] === delimiter) {
      column++;
      at++;
      if (at === length) onField(row, column, '');
    } else {
      // A line break: \r\n, \n or \r.
      at += text[at] === '\r' && text[at + 1] === '\n' ? 2 : 1;
      row++;
      column = 0;
      if (at === length) break;
      if (row >= maxRows) return true;
    }
  }
  return false;
}

function nextBreak(text: string, from: number, delimiter: string): number {
  for (let i = from; i < text.length; i++) {
    const char = text[i];
    if (char === delimiter || char === '\n' || char === '\r') return i;
  }
  return text.length;
}
