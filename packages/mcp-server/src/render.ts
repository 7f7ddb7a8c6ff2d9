/**
 * What the tools answer: text for a model to read, markdown first, a short header naming the
 * source and the request id, links and images only when asked for, and the whole answer at most
 * `max_length` characters: the content is cut with a note saying how to read on, the lists after
 * as many of their items as fit.
 */
import type { CrawlCounts, CrawlPage, CrawlStatus, MapStatus, ParseStatus, ScrapeCompletedStatus, SelectResult } from '@gleaner/client';
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

/** A crawl's or batch's counts in a line: "12 pages read, 1 failed, 3 skipped (robots 2, duplicate 1), 4 queued; 40 URLs found". */
export function crawlCountsLine(counts: CrawlCounts): string {
  const why = Object.entries(counts.skipped_by ?? {})
    .filter(([, n]) => n > 0)
    .map(([reason, n]) => `${reason.replace(/_/g, ' ')} ${number(n)}`)
    .join(', ');
  const parts = [`${number(counts.completed)} pages read`, `${number(counts.failed)} failed`, `${number(counts.skipped)} skipped${why ? ` (${why})` : ''}`];
  if (counts.queued + counts.processing > 0) parts.push(`${number(counts.queued + counts.processing)} queued`);
  return `${parts.join(', ')}; ${number(counts.discovered)} URLs found`;
}

/** A crawl's or batch's results as read for an answer: its latest state and the results listed from `cursor` on. */
export interface CrawlResults {
  kind: 'crawl' | 'batch';
  status: CrawlStatus;
  entries: CrawlPage[];
  cursor: number;
  /** Whether more results may be listed after `entries` (the reads stopped before the end). */
  more: boolean;
}

/** One result as a section: a page (its title, URL and text), or why it is not one. Numbered from 1. */
function resultSection(entry: CrawlPage, n: number, format: 'markdown' | 'text'): string {
  if (entry.status === 'failed') return `## ${n}. Failed: ${entry.url}\n${entry.error}`;
  if (entry.status === 'skipped') return `## ${n}. Skipped: ${entry.url}\n${entry.reason}`;
  const meta = entry.content.meta ?? { title: '', description: '' };
  const body =
    entry.llm_output !== undefined
      ? `Extracted by the language model (JSON):\n\`\`\`json\n${JSON.stringify(entry.llm_output, null, 2)}\n\`\`\``
      : ((format === 'markdown' ? entry.content.markdown : undefined) ?? entry.content.text ?? '') || '(The page has no readable text.)';
  return `## ${n}. ${oneLine(meta.title ?? '') || entry.url}\nURL: ${meta.final_url ?? entry.url}\n\n${body}`;
}

/**
 * A crawl's or batch's results for the model, at most `show.max_length` characters: a header with
 * its state and counts, then whole results in order from `cursor` (the first one from
 * `startIndex`), and a note saying how to read on: from the next result (`cursor`), or inside one
 * too long for the answer (`cursor` and `start_index`), or later while the crawl still runs.
 */
export function renderCrawl(results: CrawlResults, show: { format: 'markdown' | 'text'; max_length: number }, startIndex = 0): string {
  const { kind, status, entries, cursor } = results;
  const id = status.request_id;
  const noun = kind === 'crawl' ? 'Crawl' : 'Batch';
  const state = status.status === 'processing' ? 'still running' : status.status === 'failed' ? `failed: ${status.error ?? 'E008'}` : `${status.status}${status.reason ? `: ${status.reason}` : ''}`;
  const header = [`# ${noun}${status.url ? ` of ${status.url}` : ''} (${state})`, `Request ID: ${id}`, `Results: ${crawlCountsLine(status.counts)}`];
  if (cursor > 0 || startIndex > 0) header.push(`(From result ${number(cursor + 1)}${startIndex > 0 ? `, character ${number(startIndex)}` : ''}.)`);
  const head = `${header.join('\n')}\n\n`;

  const readOn = (at: number, within?: number) => `call get_result with request_id "${id}", kind "${kind}", cursor "${at}"${within !== undefined ? ` and start_index ${within}` : ''}.`;
  const notes = {
    cut: (n: number, at: number, of: number) => `[Result ${number(n)} cut at character ${number(at)} of ${number(of)}. To read on, ${readOn(n - 1, at)}]`,
    boundary: (first: number, last: number) => `[Results ${number(first)} to ${number(last)} shown. To read on, ${readOn(last)}]`,
    running: (next: number) => `[The ${kind} is still running: these are its results so far. For the ones that follow, ${readOn(next)} Call it in a little while.]`,
    end: `[End of the ${kind}'s results.]`,
  };
  const big = 999_999_999;
  const noteRoom = 2 + Math.max(notes.cut(big, big, big).length, notes.boundary(big, big).length, notes.running(big).length);
  const room = show.max_length - head.length - noteRoom;

  let body = '';
  let note: string | null = null;
  for (let i = 0; i < entries.length; i++) {
    const n = cursor + i + 1;
    const section = resultSection(entries[i], n, show.format);
    const from = i === 0 ? Math.min(startIndex, section.length) : 0;
    const separator = body ? '\n\n' : '';
    if (body.length + separator.length + section.length - from <= room) {
      body += separator + section.slice(from);
      continue;
    }
    if (i === 0) {
      const cut = cutText(section, from, room);
      body = cut.text;
      note = notes.cut(n, cut.next ?? section.length, section.length);
    } else {
      note = notes.boundary(cursor + 1, cursor + i);
    }
    break;
  }
  const next = cursor + entries.length;
  if (note === null) {
    if (results.more) note = notes.boundary(cursor + 1, next);
    else if (status.status === 'processing') note = notes.running(next);
    else note = notes.end;
  }
  const empty = entries.length > 0 ? '' : status.status === 'processing' ? '(No results listed yet.)' : cursor > 0 ? '(No further results.)' : '(No results.)';
  return `${head}${body || empty}\n\n${note}`;
}

/** A map's URLs, one a line with its title where known, at most `show.max_length` characters; `cursor` is the first URL shown (0-based). */
export function renderMap(status: MapStatus, show: { max_length: number }, cursor = 0): string {
  const links = status.links ?? [];
  const header = [`# Map of ${status.url}: ${number(links.length)} URL${links.length === 1 ? '' : 's'}`, `Request ID: ${status.request_id}`];
  if (cursor > 0) header.push(`(From URL ${number(cursor + 1)}.)`);
  const head = `${header.join('\n')}\n\n`;
  const note = (last: number) => `\n\n[URLs ${number(cursor + 1)} to ${number(last)} of ${number(links.length)} shown. To read on, call get_result with request_id "${status.request_id}", kind "map" and cursor "${last}".]`;
  const room = show.max_length - head.length - note(links.length).length;
  let body = '';
  let shown = cursor;
  while (shown < links.length) {
    const { url, title } = links[shown];
    const line = `- ${url}${title ? ` (${oneLine(title)})` : ''}`;
    if (body.length + 1 + line.length > room) {
      if (shown > cursor) break;
      // Not even one line fits: the first is shown cut, so that every answer moves on.
      body = line.slice(0, Math.max(0, room));
      shown++;
      break;
    }
    body += `${body ? '\n' : ''}${line}`;
    shown++;
  }
  if (links.length === 0) return `${head}(No URLs were found.)`;
  return `${head}${body || '(No further URLs.)'}${shown < links.length ? note(shown) : ''}`;
}
