/**
 * What the tools answer: text for a model to read, markdown first, a short header naming the
 * source and the request id, the content cut at `max_length` with a note saying how to read on,
 * and links and images only when asked for.
 */
import type { ParseStatus, ScrapeCompletedStatus, SelectResult } from '@gleaner/client';
import type { PagePresentation } from './tool-inputs.js';

/** Gleaner's separator of pages in a parsed document (SPEC "Document parse job"). */
export const PAGE_BREAK = '\n\n=== Page Break ===\n\n';
/** Links and images listed at most; a page may have thousands (a site map, a gallery). */
const MAX_LISTED = 200;

export interface Cut {
  text: string;
  /** Where the next read starts; null when the text was shown to its end. */
  next: number | null;
  total: number;
}

/**
 * `text` from `start`, at most `max` characters, ending on a line or word boundary when one is
 * close to the cut (the next read starts exactly there, so nothing is lost or repeated).
 */
export function cutText(text: string, start: number, max: number): Cut {
  const from = Math.min(start, text.length);
  if (text.length - from <= max) return { text: text.slice(from), next: null, total: text.length };
  let end = from + max;
  const window = text.slice(from + Math.floor(max * 0.9), end);
  const boundary = Math.max(window.lastIndexOf('\n'), window.lastIndexOf(' '));
  if (boundary > 0) end = from + Math.floor(max * 0.9) + boundary + 1;
  return { text: text.slice(from, end), next: end, total: text.length };
}

function number(n: number): string {
  return n.toLocaleString('en-US');
}

/** The line after cut content: what was shown and how to read on. */
function cutNote(cut: Cut, readOn: string | null): string {
  if (cut.next === null) return '';
  const how = readOn ? ` To read on, ${readOn.replace('{next}', String(cut.next))}` : '';
  return `\n\n[Cut at character ${number(cut.next)} of ${number(cut.total)}.${how}]`;
}

export function readOnWithGetResult(requestId: string, kind: 'scrape' | 'parse_document'): string {
  return `call get_result with request_id "${requestId}", kind "${kind}" and start_index {next}.`;
}

/** A completed scrape (status-endpoint shape), as a page for the model. */
export function renderPage(result: ScrapeCompletedStatus, show: PagePresentation, startIndex = 0): string {
  const { content } = result;
  const meta = content.meta ?? { title: '', description: '' };
  const lines = [`# ${meta.title || result.url}`, `URL: ${meta.final_url ?? result.url}`, `Request ID: ${result.request_id}`];
  if (meta.description) lines.push(`Description: ${meta.description}`);
  let body: string;
  if (result.llm_output !== undefined) {
    lines.push('', 'Extracted by the language model (JSON):', '```json', JSON.stringify(result.llm_output, null, 2), '```');
    if (result.llm_input_truncated) lines.push('(The page was longer than the model reads: only its beginning was read.)');
    body = lines.join('\n');
  } else {
    const text = (show.format === 'markdown' ? content.markdown : undefined) ?? content.text ?? '';
    const cut = cutText(text, startIndex, show.max_length);
    if (startIndex > 0) lines.push(`(From character ${number(Math.min(startIndex, text.length))} of ${number(text.length)}.)`);
    body = `${lines.join('\n')}\n\n${cut.text || '(The page has no readable text.)'}${cutNote(cut, readOnWithGetResult(result.request_id, 'scrape'))}`;
  }
  if (show.include_links) body += `\n\n${listed('Links', content.links ?? [], (l) => `- [${oneLine(l.text) || l.url}](${l.url}) (${l.type})`)}`;
  if (show.include_images) body += `\n\n${listed('Images', content.images ?? [], (i) => `- ![${oneLine(i.alt)}](${i.url})`)}`;
  return body;
}

function listed<T>(title: string, items: T[], line: (item: T) => string): string {
  if (items.length === 0) return `## ${title}\n(none)`;
  const shown = items.slice(0, MAX_LISTED).map(line);
  const more = items.length > MAX_LISTED ? `\n(${number(items.length - MAX_LISTED)} more not listed)` : '';
  return `## ${title} (${items.length})\n${shown.join('\n')}${more}`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim().replace(/[[\]]/g, '');
}

/** Pages chosen by a "1-3,7" list, 1-based, in document order; numbers past the end are ignored. */
export function pageNumbers(spec: string, pageCount: number): number[] {
  const chosen = new Set<number>();
  for (const part of spec.split(',')) {
    const [from, to = from] = part.split('-').map((n) => Number(n.trim()));
    for (let p = Math.max(1, from); p <= Math.min(to, pageCount); p++) chosen.add(p);
  }
  return [...chosen].sort((a, b) => a - b);
}

export interface ParsedDocument {
  requestId: string;
  url?: string;
  type?: string;
  data: string;
}

/**
 * A parsed document. Pages of a multi-page document are labelled "=== Page N of M ===" (in place
 * of Gleaner's page-break line) so the model can cite them; `pages` keeps only some.
 */
export function renderDocument(doc: ParsedDocument, options: { pages?: string; max_length: number; startIndex?: number }): string {
  const texts = doc.data.split(PAGE_BREAK);
  const count = texts.length;
  const chosen = options.pages ? pageNumbers(options.pages, count) : texts.map((_, i) => i + 1);
  const header = [`Document: ${doc.url ?? '(see request)'}`, `Type: ${doc.type ?? 'unknown'}, ${count} page${count === 1 ? '' : 's'}${options.pages ? ` (showing ${chosen.length ? options.pages : 'none: no such page'})` : ''}`, `Request ID: ${doc.requestId}`];
  const body = count === 1 ? texts[0] : chosen.map((p) => `=== Page ${p} of ${count} ===\n\n${texts[p - 1]}`).join('\n\n');
  const start = options.startIndex ?? 0;
  const cut = cutText(body, start, options.max_length);
  if (start > 0) header.push(`(From character ${number(Math.min(start, body.length))} of ${number(body.length)}.)`);
  const readOn = options.pages ? 'ask for fewer pages at a time.' : readOnWithGetResult(doc.requestId, 'parse_document');
  return `${header.join('\n')}\n\n${cut.text || '(No text was found in the document.)'}${cutNote(cut, readOn)}`;
}

/** A completed parse status record as a document. */
export function parseStatusDocument(status: ParseStatus): ParsedDocument {
  return { requestId: status.requestId, type: status.type, data: status.data ?? '' };
}

/** The elements a v1 selector matched. */
export function renderSelection(url: string, selector: string, result: SelectResult, show: { include_html: boolean; max_length: number }): string {
  const content = result.scraped_content ?? { html: '', text: '' };
  const header = [`URL: ${url}`, `Selector: ${selector}`, `Request ID: ${result.request_id}`];
  if (!content.html.trim()) return `${header.join('\n')}\n\nNo element matched the selector.`;
  const text = cutText(content.text, 0, show.max_length);
  let body = `${header.join('\n')}\n\n## Text of the matched elements\n${text.text}${cutNote(text, 'use a narrower selector.')}`;
  if (show.include_html) {
    const html = cutText(content.html, 0, show.max_length);
    body += `\n\n## HTML of the matched elements\n\`\`\`html\n${html.text}\n\`\`\`${cutNote(html, 'use a narrower selector.')}`;
  }
  return body;
}
