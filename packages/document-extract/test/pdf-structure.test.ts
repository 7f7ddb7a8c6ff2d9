import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { extractPdf } from '../src/pdf/index.js';
import type { TextBlock, TextLine } from '../src/pdf/page-layout.js';
import { pipeTable } from '../src/markup/pipe-table.js';
import { withoutRunningLines } from '../src/pdf/running-lines.js';
import { joinTablesAcrossPages, type PageTable } from '../src/pdf/table-cells.js';

// The structure corpus lives in shared/, beside the repository; it is read in place.
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const STRUCTURE = path.resolve(repoRoot, '../shared/corpus/docs-structure');
const line = (text: string, y: number, extra: Partial<TextLine> = {}): TextLine => ({ text, x: 72, right: 400, y, size: 10, ...extra });
const table = (rows: string[][]): PageTable => ({ x: 72, y: 100, right: 500, bottom: 300, rows, size: 10 });

describe('PDF structure in markdown', () => {
  it('writes a table as a pipe table, pipes in cells escaped', () => {
    expect(pipeTable([['Name', 'a|b'], ['x', '']])).toBe('| Name | a\\|b |\n| --- | --- |\n| x |  |');
  });

  it('joins a table split by a page break, its repeated header row dropped', () => {
    const first = table([['Year', 'Sales'], ['2007', '1,505']]);
    const second = table([['Year', 'Sales'], ['2008', '1,580']]);
    const pages: Array<TextBlock[] | null> = [[[line('Intro', 50)], [{ ...line('', 100), table: first }]], [[{ ...line('', 40), table: second }], [line('After the table', 320)]]];
    const joined = joinTablesAcrossPages(pages);
    expect(first.rows).toEqual([['Year', 'Sales'], ['2007', '1,505'], ['2008', '1,580']]);
    expect(joined[1]).toEqual([[line('After the table', 320)]]);
    // Tables of another width, or parted by text, stay apart.
    const other = table([['a', 'b', 'c'], ['1', '2', '3']]);
    const apart: Array<TextBlock[] | null> = [[[{ ...line('', 100), table: table([['x', 'y'], ['1', '2']]) }]], [[{ ...line('', 40), table: other }]]];
    expect(joinTablesAcrossPages(apart)[1]).toHaveLength(1);
  });

  it('leaves out running headers, footers and page numbers that come back on several pages', () => {
    const page = (n: number) => ({
      height: 800,
      blocks: [[line(`Annual report ${2000 + n}`, 30)], [line(`Body text of page ${n}, which differs.`, 400)], [line(String(n), 780)]],
    });
    const pages = withoutRunningLines([page(1), page(2), page(3)]);
    for (const [i, blocks] of pages.entries()) expect(blocks!.map((b) => b.map((l) => l.text).join(' '))).toEqual([`Body text of page ${i + 1}, which differs.`]);
    // A single page keeps everything.
    expect(withoutRunningLines([page(1)])[0]).toHaveLength(3);
  });

  it('gives a ruled table in markdown and the same text as before in plain output', async () => {
    const bytes = readFileSync(path.join(STRUCTURE, 'pdf-tables/tabula-us-017.pdf'));
    const [markdown, plain] = await Promise.all([extractPdf(bytes, { output: 'markdown' }), extractPdf(bytes, { output: 'plain' })]);
    // Table 2.3 of the NSF report, a ruled table between paragraphs on page 2.
    expect(markdown.pages[1]).toMatch(/^\| .+ \| .+ \|$/m);
    expect(markdown.pages[1]).toMatch(/^\| --- \| --- \|/m);
    expect(plain.pages.join('\n')).not.toMatch(/^\|/m);
    expect(plain.pages).toHaveLength(markdown.pages.length);
  });
});
