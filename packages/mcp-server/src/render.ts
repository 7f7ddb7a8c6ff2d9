/**
 * What the tools answer: text for a model to read, markdown first, a short header naming the
 * source and the request id, links and images only when asked for, and the whole answer at most
 * `max_length` characters: the content is cut with a note saying how to read on, the lists after
 * as many of their items as fit.
 */
import type { ParseStatus, ScrapeCompletedStatus, SelectResult } from '@gleaner/client';
import { AnswerError } from './tool-errors.js';
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
  if (max <= 0) return { text: '', next: from < text.length ? from : null, total: text.length };
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
function cutNote(cut: Cut, readOn: string): string {
  if (cut.next === null) return '';
  return `\n\n[Cut at character ${number(cut.next)} of ${number(cut.total)}. To read on, ${readOn.replace('{next}', String(cut.next))}]`;
}

/**
 * `text` from `start`, cut so that it and its note take at most `budget` characters; with
 * `empty` in place of nothing shown. The note's length is bounded by the one naming the last
 * character (no offset has more digits).
 */
function boundedText(text: string, start: number, budget: number, readOn: string, empty: string): string {
  const whole = cutText(text, start, Math.max(0, budget));
  if (whole.next === null) return whole.text || empty;
  const noteRoom = cutNote({ text: '', next: text.length, total: text.length }, readOn).length;
  const cut = cutText(text, start, budget - noteRoom);
  return `${cut.text}${cutNote(cut, readOn)}`;
}

export function readOnWithGetResult(requestId: string, kind: 'scrape' | 'parse_document', pages?: string): string {
  return `call get_result with request_id "${requestId}", kind "${kind}"${pages ? `, pages "${pages}"` : ''} and start_index {next}.`;
}

/** A completed scrape (status-endpoint shape), as a page for the model: at most `show.max_length` characters in all. */
export function renderPage(result: ScrapeCompletedStatus, show: PagePresentation, startIndex = 0): string {
  const { content } = result;
  const meta = content.meta ?? { title: '', description: '' };
  const lines = [`# ${meta.title || result.url}`, `URL: ${meta.final_url ?? result.url}`, `Request ID: ${result.request_id}`];
  if (meta.description) lines.push(`Description: ${meta.description}`);
  const lists: Array<{ title: string; lines: string[] }> = [];
  if (show.include_links) lists.push({ title: 'Links', lines: (content.links ?? []).map((l) => `- [${oneLine(l.text) || l.url}](${l.url}) (${l.type})`) });
  if (show.include_images) lists.push({ title: 'Images', lines: (content.images ?? []).map((i) => `- ![${oneLine(i.alt)}](${i.url})`) });

  let main: string;
  let readOn: string | null = null;
  const empty = result.llm_output !== undefined ? '{}' : '(The page has no readable text.)';
  if (result.llm_output !== undefined) {
    lines.push('', 'Extracted by the language model (JSON):');
    if (result.llm_input_truncated) lines.push('(The page was longer than the model reads: only its beginning was read.)');
    main = JSON.stringify(result.llm_output, null, 2);
  } else {
    main = (show.format === 'markdown' ? content.markdown : undefined) ?? content.text ?? '';
    if (startIndex > 0) lines.push(`(From character ${number(Math.min(startIndex, main.length))} of ${number(main.length)}.)`);
    readOn = readOnWithGetResult(result.request_id, 'scrape');
  }
  // Extracted JSON follows its label on the next line; text comes after a blank line.
  const head = `${lines.join('\n')}${readOn ? '\n\n' : '\n'}`;
  // What the content and its lists may take; the lists get half when the content needs the rest.
  const available = show.max_length - head.length - (readOn ? 0 : JSON_FENCE.length);
  const contentNeeds = Math.max(0, main.length - (readOn ? startIndex : 0));
  const listed = renderLists(lists, Math.max(Math.floor(available / 2), available - contentNeeds));
  const room = available - listed.length;
  const body = readOn
    ? boundedText(main, startIndex, room, readOn, empty)
    : `\`\`\`json\n${boundedText(main, 0, room, 'ask again with a larger max_length (the JSON cannot be read on with get_result).', empty)}\n\`\`\``;
  return `${head}${body}${listed}`;
}

/** The fence around extracted JSON, counted in the budget. */
const JSON_FENCE = '```json\n\n```';

/**
 * The link and image lists in at most `budget` characters, shared equally but what the shorter
 * list leaves going to the other, each ending with how many of its items were left out. Empty
 * when none was asked for.
 */
function renderLists(lists: Array<{ title: string; lines: string[] }>, budget: number): string {
  const whole = lists.map((list) => listWithin(list.title, list.lines, Infinity).length);
  const order = lists.map((_, i) => i).sort((a, b) => whole[a] - whole[b]);
  const shares: number[] = [];
  let left = budget;
  order.forEach((index, n) => {
    shares[index] = Math.min(whole[index], Math.floor(left / (order.length - n)));
    left -= shares[index];
  });
  return lists.map((list, i) => listWithin(list.title, list.lines, shares[i])).join('');
}

function listWithin(title: string, lines: string[], budget: number): string {
  if (lines.length === 0) return `\n\n## ${title}\n(none)`;
  const listable = lines.slice(0, MAX_LISTED);
  const omitted = (shown: number) => {
    const n = lines.length - shown;
    if (n === 0) return '';
    return `\n(${number(n)} more not listed${shown < listable.length ? ': a larger max_length shows more' : ''})`;
  };
  let out = `\n\n## ${title} (${lines.length})`;
  let shown = 0;
  // An item goes in when it and the line saying how many are left out still fit.
  while (shown < listable.length && out.length + 1 + listable[shown].length + omitted(shown + 1).length <= budget) out += `\n${listable[shown++]}`;
  return `${out}${omitted(shown)}`;
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
  /** Where the document came from: its URL, or an upload's file name. */
  url?: string;
  fileName?: string;
  type?: string;
  data: string;
}

/**
 * A parsed document, at most `max_length` characters in all. Pages of a multi-page document are
 * labelled "=== Page N of M ===" (in place of Gleaner's page-break line) so the model can cite
 * them; `pages` keeps only some, and naming none of them is an error that says how many there are.
 */
export function renderDocument(doc: ParsedDocument, options: { pages?: string; max_length: number; startIndex?: number }): string {
  const texts = doc.data.split(PAGE_BREAK);
  const count = texts.length;
  const chosen = options.pages ? pageNumbers(options.pages, count) : texts.map((_, i) => i + 1);
  if (chosen.length === 0) {
    throw new AnswerError(`The document has ${count} page${count === 1 ? '' : 's'}: pages "${options.pages}" names none of them (pages are numbered 1 to ${count}). Request ID: ${doc.requestId}.`);
  }
  const source = doc.url ?? doc.fileName;
  const showing = options.pages ? ` (showing ${options.pages})` : '';
  const header = [...(source ? [`Document: ${source}`] : []), `Type: ${doc.type ?? 'unknown'}, ${count} page${count === 1 ? '' : 's'}${showing}`, `Request ID: ${doc.requestId}`];
  const body = count === 1 ? texts[0] : chosen.map((p) => `=== Page ${p} of ${count} ===\n\n${texts[p - 1]}`).join('\n\n');
  const start = options.startIndex ?? 0;
  if (start > 0) header.push(`(From character ${number(Math.min(start, body.length))} of ${number(body.length)}.)`);
  const head = `${header.join('\n')}\n\n`;
  return `${head}${boundedText(body, start, options.max_length - head.length, readOnWithGetResult(doc.requestId, 'parse_document', options.pages), '(No text was found in the document.)')}`;
}

/** A completed parse status record as a document. */
export function parseStatusDocument(status: ParseStatus): ParsedDocument {
  return { requestId: status.requestId, url: status.url, fileName: status.fileName, type: status.type, data: status.data ?? '' };
}

/**
 * The elements a v1 selector matched, at most `max_length` characters in all: the HTML (when
 * asked for) gets what the text leaves, at least half. `url` and `selector` are named when known
 * (a request read back by id has neither).
 */
export function renderSelection(url: string | null, selector: string | null, result: SelectResult, show: { include_html: boolean; max_length: number }): string {
  const content = result.scraped_content ?? { html: '', text: '' };
  const header = [...(url ? [`URL: ${url}`] : []), ...(selector ? [`Selector: ${selector}`] : []), `Request ID: ${result.request_id}`].join('\n');
  if (!content.html.trim()) return `${header}\n\nNo element matched the selector.`;
  const narrower = 'use a narrower selector.';
  const textHead = `${header}\n\n## Text of the matched elements\n`;
  const htmlHead = '\n\n## HTML of the matched elements\n```html\n';
  const htmlTail = '\n```';
  let available = show.max_length - textHead.length;
  if (show.include_html) available -= htmlHead.length + htmlTail.length;
  const textShare = show.include_html ? Math.max(Math.floor(available / 2), available - content.html.length) : available;
  const text = boundedText(content.text, 0, textShare, narrower, '');
  if (!show.include_html) return `${textHead}${text}`;
  return `${textHead}${text}${htmlHead}${boundedText(content.html, 0, available - text.length, narrower, '')}${htmlTail}`;
}
