import { readXml } from '../markup/xml-stream.js';
import { pipeTable } from '../markup/pipe-table.js';
import { readRelationships } from '../office/relationships.js';
import type { ZipPackage } from '../office/zip-package.js';
import type { OutputFormat } from '../types.js';
import { numberText } from './cell-values.js';

/** At most this many charts are read for one sheet, and this many points for one series. */
const MAX_CHARTS_PER_SHEET = 50;
const MAX_POINTS = 10_000;

export interface Chart {
  title: string;
  /** Header row ('' then the series' names), then one row per category. */
  rows: string[][];
}

/**
 * The charts drawn on a sheet (sheet -> drawing -> chart parts): their titles and the data they
 * show, which the chart part caches (series names, categories, values), so a chart says what
 * it plots even where its source cells are elsewhere.
 */
export async function readChartsOf(pkg: ZipPackage, sheetPart: string): Promise<Chart[]> {
  const charts: Chart[] = [];
  for (const drawing of (await readRelationships(pkg.zip, sheetPart)).values()) {
    if (drawing.type !== 'drawing') continue;
    for (const chart of (await readRelationships(pkg.zip, drawing.target)).values()) {
      if (chart.type !== 'chart' || charts.length >= MAX_CHARTS_PER_SHEET) continue;
      const xml = await pkg.text(chart.target);
      if (xml) charts.push(readChart(xml));
    }
  }
  return charts;
}

interface Series {
  name: string;
  categories: string[];
  values: string[];
}

function readChart(xml: string): Chart {
  const stack: string[] = [];
  const title: string[] = [];
  const series: Series[] = [];
  let current: Series | null = null;
  let point = -1;
  let text: string[] = [];
  readXml(xml, {
    open(name, attributes) {
      stack.push(name);
      if (name === 'ser') current = { name: '', categories: [], values: [] };
      else if (name === 'pt') point = Math.min(Number(attributes.idx ?? 0), MAX_POINTS - 1);
      text = [];
    },
    text(value) {
      text.push(value);
    },
    close(name) {
      const parent = stack[stack.length - 2];
      const inTitle = stack.includes('title') && stack[stack.indexOf('title') - 1] === 'chart';
      if (name === 't' && inTitle) title.push(text.join(''));
      else if (name === 'v' && current) {
        const where = stack.find((n) => n === 'tx' || n === 'cat' || n === 'val' || n === 'xVal' || n === 'yVal');
        const value = text.join('');
        if (where === 'tx') current.name = value;
        else if (parent === 'pt' && (where === 'cat' || where === 'xVal')) current.categories[point] = value;
        else if (parent === 'pt' && (where === 'val' || where === 'yVal')) current.values[point] = numberText(value);
      } else if (name === 'ser' && current) {
        series.push(current);
        current = null;
      }
      stack.pop();
      text = [];
    },
  });
  const points = Math.max(0, ...series.map((s) => Math.max(s.values.length, s.categories.length)));
  const rows: string[][] = [['', ...series.map((s) => s.name)]];
  for (let i = 0; i < points; i++) rows.push([series.find((s) => s.categories[i] !== undefined)?.categories[i] ?? '', ...series.map((s) => s.values[i] ?? '')]);
  return { title: title.join('').trim(), rows: points > 0 ? rows : [] };
}

export function renderChart(chart: Chart, output: OutputFormat): string {
  const table = chart.rows.length === 0 ? '' : output === 'markdown' ? pipeTable(chart.rows) : chart.rows.map((row) => row.join('\t').replace(/^\t+|\t+$/g, '')).join('\n');
  return [chart.title, table].filter((part) => part !== '').join('\n\n');
}
