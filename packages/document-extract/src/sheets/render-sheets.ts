import { pipeTable } from '../markup/pipe-table.js';
import type { OutputFormat } from '../types.js';
import { MAX_SHEET_COLUMNS, MAX_SHEET_ROWS, type SheetGrid } from './sheet-grid.js';

/**
 * A sheet as one page: in markdown its name as a heading and each of its tables as a pipe table
 * (first row as header); in plain text its name on a line and each table's rows as
 * tab-separated cells. Cells left out past a limit are said so under the tables.
 */
export function renderSheet(sheet: SheetGrid, output: OutputFormat, options: { heading: boolean }): string {
  const tables = sheet.tables();
  const parts: string[] = [];
  if (options.heading && sheet.name !== '') parts.push(output === 'markdown' ? `## ${sheet.name.replace(/\s+/g, ' ').trim()}` : sheet.name);
  for (const rows of tables) parts.push(output === 'markdown' ? pipeTable(rows) : rows.map((row) => row.map(plainCell).join('\t').replace(/\t+$/, '')).join('\n'));
  const cuts = cutNotes(sheet);
  if (cuts.length > 0) parts.push(`(${cuts.join('; ')})`);
  return parts.join('\n\n');
}

/** What was left out of a sheet, in words, for its page and for the operators' notes. */
export function cutNotes(sheet: SheetGrid): string[] {
  const notes: string[] = [];
  if (sheet.rowsCut) notes.push(`rows after row ${MAX_SHEET_ROWS.toLocaleString('en-US')} are not shown`);
  if (sheet.columnsCut) notes.push(`columns after column ${MAX_SHEET_COLUMNS} are not shown`);
  if (sheet.workbookCut) notes.push('the workbook has more cells than are read; the rest is not shown');
  return notes;
}

function plainCell(text: string): string {
  return text.replace(/\s*[\r\n\t]+\s*/g, ' ').trim();
}
