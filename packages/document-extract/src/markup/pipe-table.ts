/**
 * A GFM pipe table of rows of cell texts: the first row is the header, every row is padded to
 * the widest, a cell is one line (runs of white space become one space) with its backslashes and
 * pipes escaped (a cell's own `\\|` must not end the cell).
 */
export function pipeTable(rows: string[][]): string {
  const width = rows.reduce((widest, row) => Math.max(widest, row.length), 0);
  if (width === 0) return '';
  const line = (row: string[]) => {
    const cells: string[] = [];
    for (let c = 0; c < width; c++) cells.push(pipeCell(row[c] ?? ''));
    return `| ${cells.join(' | ')} |`;
  };
  const lines = [line(rows[0]), `|${' --- |'.repeat(width)}`];
  for (let r = 1; r < rows.length; r++) lines.push(line(rows[r]));
  return lines.join('\n');
}

function pipeCell(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();
}
