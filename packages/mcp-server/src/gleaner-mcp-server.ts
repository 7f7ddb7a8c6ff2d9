import { setTimeout as sleep } from 'node:timers/promises';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { GleanerApiError, GleanerClient, GleanerTimeoutError, type CrawlStatus, type ScrapeCompletedStatus, type SelectStatus, type SelectSubmitResponse } from '@gleaner/client';
import { ProgressReporter, type ProgressChannel } from './progress.js';
import { crawlCountsLine, parseStatusDocument, renderCrawl, renderDocument, renderMap, renderPage, renderSelection, type CrawlResults } from './render.js';
import { describeError, toolError } from './tool-errors.js';
import {
  cancelCrawlInput,
  crawlInput,
  crawlRequest,
  getResultInput,
  mapInput,
  mapRequest,
  parseDocumentInput,
  scrapeInput,
  scrapeManyInput,
  scrapeRequest,
  selectInput,
  type GetResultInput,
  type ScrapeInput,
} from './tool-inputs.js';

export const SERVER_NAME = 'gleaner';
export const SERVER_VERSION = '0.1.0';

export interface GleanerMcpOptions {
  /** The Gleaner API the tools call, e.g. http://127.0.0.1:8080. */
  baseUrl: string;
  apiKey: string;
  /** Status polls and progress heartbeats while a request runs. Default 5 s. */
  pollMs?: number;
  /** Longest a tool waits for one request before answering with its id for get_result. Default 10 minutes. */
  waitMs?: number;
  /** Pages scrape_many reads at once. Default 4. */
  concurrency?: number;
  fetch?: typeof fetch;
  /**
   * Aborted when the host shuts down (the gateway's /mcp): a call still running ends at once with
   * a tool error saying so and naming the requests it started, instead of with its stream cut.
   */
  stopping?: AbortSignal;
}

/** A scrape's status read waits up to this long for its end (the gateway holds it at most its 20 s window). */
const SCRAPE_WAIT_SECONDS = 20;

/** How to read a request's result when a call ends before it does. */
function resumeHint(id: string, kind: ResumableKind | 'batch'): string {
  return `call get_result with request_id "${id}" and kind "${kind}"`;
}
type ResumableKind = 'scrape' | 'parse_document' | 'crawl' | 'map';

/** What a running tool call has: its client, progress, signal, and the requests it started. */
interface ToolCall {
  client: GleanerClient;
  progress: ProgressReporter;
  /** The client's cancellation, or the host shutting down. */
  signal: AbortSignal;
  started: Array<{ id: string; kind: ResumableKind }>;
}

/** The read-only, web-reading nature of the tools, for clients that ask before calling. */
const READS_THE_WEB = { readOnlyHint: true, openWorldHint: true } as const;

const INSTRUCTIONS = `Gleaner turns web pages and documents into clean text for you to read.
- scrape: one web page as markdown (or JSON extracted by a language model with prompt).
- scrape_many: several pages at once; failures are reported per page.
- select: only the elements of a page that match a CSS selector or XPath expression.
- parse_document: a PDF, Word, Excel, PowerPoint, OpenDocument, EPUB, HTML, image (OCR) or text file as text, page by page.
- crawl: the pages of a whole site (or a part of it, by path) from a start URL, politely, up to limit pages; cancel_crawl stops one.
- map: a site's URLs (with titles where known) without reading the pages, to choose what to scrape or crawl.
- get_result: a request that was still running, or the rest of a long answer (start_index; cursor for crawls and maps).
Answers are cut at max_length characters; the cut says how to read on.
Work goes on in Gleaner when a call is cancelled or times out: progress messages name the request ID from the start, and get_result reads the result by it.`;

/** The first read of a crawl's state comes this soon (a small crawl ends in a second or two); later ones every pollMs. */
const FIRST_CRAWL_READ_MS = 1_000;

/**
 * Gleaner's tools as an MCP server, for any transport (stdio, Streamable HTTP). Each tool call has
 * its own Gleaner client bound to the call's abort signal: a cancelled call aborts the request in
 * flight and stops waiting (the Gleaner request itself goes on and stays readable by id).
 */
export function createGleanerMcpServer(options: GleanerMcpOptions): McpServer {
  const pollMs = options.pollMs ?? 5_000;
  const waitMs = options.waitMs ?? 10 * 60_000;
  const concurrency = options.concurrency ?? 4;
  const clientFor = (signal: AbortSignal) => new GleanerClient({ baseUrl: options.baseUrl, apiKey: options.apiKey, signal, ...(options.fetch ? { fetch: options.fetch } : {}) });
  const server = new McpServer({ name: SERVER_NAME, version: SERVER_VERSION }, { instructions: INSTRUCTIONS });

  /**
   * Runs one tool call: progress from the start (with `idFirst`, the first message waits for the
   * request id, milliseconds away), every failure a tool error, the heartbeat stopped at the end.
   */
  const run = async (
    extra: ProgressChannel & { signal: AbortSignal },
    first: string,
    work: (call: ToolCall) => Promise<CallToolResult>,
    { idFirst = false } = {},
  ): Promise<CallToolResult> => {
    const progress = new ProgressReporter(extra, pollMs, first, { untilUpdate: idFirst });
    const signal = options.stopping ? AbortSignal.any([extra.signal, options.stopping]) : extra.signal;
    const call: ToolCall = { client: clientFor(signal), progress, signal, started: [] };
    try {
      return await work(call);
    } catch (err) {
      if (options.stopping?.aborted && !extra.signal.aborted) return errorText(shuttingDown(call.started));
      return toolError(extra.signal.aborted ? abortError() : err, options.baseUrl);
    } finally {
      progress.stop();
    }
  };

  /** One page: the request id at once (reported by `onAccepted`), the result as soon as it ends. */
  const scrapeOne = (call: ToolCall, url: string, input: Omit<ScrapeInput, 'url'>, onAccepted: (id: string) => void, onProgress: (message: string) => void) =>
    call.client.scrapeAndWait(scrapeRequest(url, input), {
      pollMs,
      timeoutMs: waitMs,
      waitSeconds: SCRAPE_WAIT_SECONDS,
      onAccepted: (id) => {
        call.started.push({ id, kind: 'scrape' });
        onAccepted(id);
      },
      onProgress: (p) => onProgress(`request ${p.requestId} is ${p.status}`),
    });

  server.registerTool(
    'scrape',
    {
      title: 'Read a web page',
      description:
        'Fetches one web page and returns its main content as markdown (or plain text), with its title and description; links and images on request. With prompt, a language model reads the page and the answer is the JSON it extracted. Answers are at most max_length characters; a cut says how to read on with get_result. The first progress message names the request ID: if this call is cancelled or times out, the page is still read, and get_result with that request_id and kind "scrape" returns it.',
      inputSchema: scrapeInput,
      annotations: { title: 'Read a web page', ...READS_THE_WEB },
    },
    (input, extra) =>
      run(
        extra,
        `Gleaner is reading ${input.url}`,
        async (call) => {
          try {
            const page = await scrapeOne(
              call,
              input.url,
              input,
              (id) => call.progress.update(`request ${id}: Gleaner is reading ${input.url} (if this call ends first, ${resumeHint(id, 'scrape')})`),
              (m) => call.progress.update(m),
            );
            return text(renderPage(page, input));
          } catch (err) {
            if (err instanceof GleanerTimeoutError) return text(stillRunning(err, 'scrape'));
            throw err;
          }
        },
        { idFirst: true },
      ),
  );

  server.registerTool(
    'scrape_many',
    {
      title: 'Read several web pages',
      description: `Reads several web pages at once (${concurrency} at a time) and returns each one's content as markdown, in the order given, each page's answer at most max_length characters. A page that fails is reported with Gleaner's error and does not stop the others. Progress messages list the request ID of every page started: if this call is cancelled or times out, the pages are still read, and get_result with a request_id and kind "scrape" returns each.`,
      inputSchema: scrapeManyInput,
      annotations: { title: 'Read several web pages', ...READS_THE_WEB },
    },
    (input, extra) =>
      run(extra, `0 of ${input.urls.length} pages read`, async (call) => {
        const { urls, ...rest } = input;
        let done = 0;
        let failed = 0;
        const ids = new Map<string, string>();
        const report = () =>
          call.progress.update(
            `${done} of ${urls.length} pages read${failed ? ` (${failed} failed)` : ''}; request IDs so far (for get_result with kind "scrape" if this call ends first): ${urls.flatMap((u) => (ids.has(u) ? [`${u} ${ids.get(u)}`] : [])).join(', ')}`,
          );
        const pages = await mapBounded(urls, concurrency, async (url) => {
          try {
            const page = await scrapeOne(
              call,
              url,
              rest,
              (id) => {
                ids.set(url, id);
                report();
              },
              () => undefined,
            );
            return { ok: true, text: renderPage(page, rest) };
          } catch (err) {
            if (call.signal.aborted) throw err;
            failed++;
            return { ok: false, text: err instanceof GleanerTimeoutError ? stillRunning(err, 'scrape') : `Failed: ${describeError(err, options.baseUrl)}` };
          } finally {
            done++;
            report();
          }
        });
        const sections = pages.map((page, i) => `<page index="${i + 1}" url="${urls[i]}">\n${page.text}\n</page>`);
        const summary = `${urls.length - failed} of ${urls.length} pages read${failed ? `, ${failed} failed` : ''}.`;
        return { content: [{ type: 'text', text: `${summary}\n\n${sections.join('\n\n')}` }], isError: failed === urls.length };
      }),
  );

  server.registerTool(
    'select',
    {
      title: 'Select elements of a web page',
      description:
        'Fetches a web page (without running its JavaScript) and returns only the text of the elements a CSS selector or XPath expression matches, e.g. a table, the prices, the next-page link; their HTML on request. Use it when you know what part of the page you need.',
      inputSchema: selectInput,
      annotations: { title: 'Select elements of a web page', ...READS_THE_WEB },
    },
    (input, extra) =>
      run(extra, `Gleaner is reading ${input.url}`, async ({ client, progress, signal }) => {
        const submitted = await client.select({ url: input.url, selector: input.selector, use_llm: false });
        let result: SelectSubmitResponse | SelectStatus = submitted;
        // The v1 status of a request can be read 3 times: two reads here, spaced out, leave one for get_result.
        for (const wait of [pollMs, 3 * pollMs]) {
          if (!('status' in result) || result.status === 'completed') break;
          progress.update(`request ${submitted.request_id} is ${result.status}`);
          await sleep(wait, undefined, { signal });
          const status = await client.getSelect(submitted.request_id);
          if (status.status === 'failed') return errorText(`Select request ${submitted.request_id} failed (HTTP ${status.status_code ?? 500}): ${status.details ?? 'processing failed'}`);
          result = status;
        }
        if ('status' in result && result.status !== 'completed') {
          return text(`Gleaner is still working on request ${submitted.request_id}. Call get_result with request_id "${submitted.request_id}" and kind "select" in a little while (its status can be read once more).`);
        }
        return text(renderSelection(input.url, input.selector, result, input));
      }),
  );

  server.registerTool(
    'parse_document',
    {
      title: 'Read a document',
      description:
        'Downloads a document and returns its text: PDF (text or scanned, read by OCR), Word (doc, docx), RTF, Excel (xlsx, xls), CSV, PowerPoint (pptx), OpenDocument (odt, ods, odp), EPUB, HTML, markdown, images (jpg, png, tiff, heic; OCR) and text files, as markdown (tables as pipe tables) or plain text. Pages of multi-page documents are labelled "=== Page N of M ===" (a sheet, a slide and an EPUB chapter are each a page); pages selects some of them. Answers are at most max_length characters; a cut says how to read on with get_result. Large documents take a while: progress reports pages done, and the first progress message names the request ID: if this call is cancelled or times out, the document is still read, and get_result with that request_id and kind "parse_document" returns it.',
      inputSchema: parseDocumentInput,
      annotations: { title: 'Read a document', ...READS_THE_WEB },
    },
    (input, extra) =>
      run(
        extra,
        `Gleaner is fetching ${input.url}`,
        async ({ client, progress, started }) => {
          try {
            const parsed = await client.parseAndWait(
              { url: input.url, ...(input.type ? { type: input.type } : {}), output: input.format === 'text' ? 'plain' : 'markdown' },
              {
                pollMs,
                timeoutMs: waitMs,
                // Short waits: each read that finds the document still running reports its pages.
                waitSeconds: Math.max(1, Math.round(pollMs / 1000)),
                onAccepted: (id) => {
                  started.push({ id, kind: 'parse_document' });
                  progress.update(`request ${id}: Gleaner is fetching ${input.url} (if this call ends first, ${resumeHint(id, 'parse_document')})`);
                },
                onProgress: (p) => progress.update(p.pagesTotal ? `request ${p.requestId}: ${p.pagesDone ?? 0} of ${p.pagesTotal} pages parsed` : `request ${p.requestId} is being parsed`),
              },
            );
            return text(renderDocument({ ...parsed, url: input.url }, input));
          } catch (err) {
            if (err instanceof GleanerTimeoutError) return text(stillRunning(err, 'parse_document'));
            throw err;
          }
        },
        { idFirst: true },
      ),
  );

  /**
   * Follows a crawl by its state alone (no results read meanwhile), reporting its counts, until it
   * ends or `waitMs` has passed; the latest state.
   */
  const followCrawl = async ({ client, progress, signal }: ToolCall, id: string): Promise<CrawlStatus> => {
    const deadline = Date.now() + waitMs;
    for (let delay = Math.min(FIRST_CRAWL_READ_MS, pollMs); ; delay = pollMs) {
      await sleep(Math.max(0, Math.min(delay, deadline - Date.now())), undefined, { signal });
      const state = await client.getCrawl(id, '0', 'crawl', 0);
      if (state.status !== 'processing' || Date.now() >= deadline) return state;
      progress.update(`request ${id}: ${crawlCountsLine(state.counts)}`);
    }
  };

  server.registerTool(
    'crawl',
    {
      title: 'Read a whole website',
      description:
        "Reads the pages of a website from a start URL, following its links (and its sitemaps) on the same site, politely (robots.txt obeyed, one site's pace), each page as markdown like scrape, up to limit pages (default 20). include_paths / exclude_paths narrow it to a part of the site (e.g. [\"^/docs/\"]); max_depth bounds the link hops. Progress messages report pages read, failed, skipped and queued. The answer lists the pages in order, at most max_length characters; a cut says how to read on with get_result (kind \"crawl\" and cursor). The first progress message names the request ID. Cancelling this call, or its timing out, does not stop the crawl: it goes on in Gleaner up to limit pages, and get_result with that request_id and kind \"crawl\" reads its pages (also while it runs); cancel_crawl stops it, keeping the pages already read.",
      inputSchema: crawlInput,
      annotations: { title: 'Read a whole website', ...READS_THE_WEB },
    },
    (input, extra) =>
      run(
        extra,
        `Gleaner is starting a crawl of ${input.url}`,
        async (call) => {
          const { request_id: id } = await call.client.crawl(crawlRequest(input));
          call.started.push({ id, kind: 'crawl' });
          call.progress.update(`request ${id}: Gleaner is crawling ${input.url} (if this call ends first, ${resumeHint(id, 'crawl')}; cancel_crawl stops it)`);
          const state = await followCrawl(call, id);
          return text(renderCrawl(await readCrawlResults(call.client, state, 'crawl', 0, input.max_length), input));
        },
        { idFirst: true },
      ),
  );

  server.registerTool(
    'cancel_crawl',
    {
      title: 'Stop a crawl',
      description:
        'Stops a crawl that is still running (its pages being fetched are abandoned at once); the pages it already read stay readable with get_result for 24 hours. Answers its final counts. A crawl that already ended is left as it was.',
      inputSchema: cancelCrawlInput,
      annotations: { title: 'Stop a crawl', readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    (input, extra) =>
      run(extra, `Stopping request ${input.request_id}`, async ({ client }) => {
        const id = input.request_id.toLowerCase();
        // Read first: the API answers a cancel of an ended crawl with its state, which may be "cancelled" from before.
        const before = await client.getCrawl(id, '0', input.kind, 0);
        const state = before.status === 'processing' ? await client.cancelCrawl(id, input.kind) : before;
        const how = before.status === 'processing' ? (state.status === 'cancelled' ? 'is stopped' : `ended before it could be stopped (${state.status})`) : `had already ended (${state.status}${state.reason ? `: ${state.reason}` : state.error ? `: ${state.error}` : ''})`;
        return text(`The ${input.kind} ${id} ${how}. Results: ${crawlCountsLine(state.counts)}. To read its pages, ${resumeHint(id, input.kind)}.`);
      }),
  );

  server.registerTool(
    'map',
    {
      title: "List a website's URLs",
      description:
        "Lists the URLs of a website without reading its pages: its sitemaps, the links of its start page and of a few pages more, filtered like a crawl (include_paths, exclude_paths), with page titles where known. Use it to see how a site is laid out before choosing what to scrape or crawl. Answers at most max_length characters; a cut says how to read on with get_result (kind \"map\" and cursor). The first progress message names the request ID: if this call is cancelled or times out, the map is still made, and get_result with that request_id and kind \"map\" returns it.",
      inputSchema: mapInput,
      annotations: { title: "List a website's URLs", ...READS_THE_WEB },
    },
    (input, extra) =>
      run(
        extra,
        `Gleaner is mapping ${input.url}`,
        async ({ client, progress, started }) => {
          try {
            const mapped = await client.mapAndWait(mapRequest(input), {
              pollMs,
              timeoutMs: waitMs,
              waitSeconds: SCRAPE_WAIT_SECONDS,
              onAccepted: (id) => {
                started.push({ id, kind: 'map' });
                progress.update(`request ${id}: Gleaner is mapping ${input.url} (if this call ends first, ${resumeHint(id, 'map')})`);
              },
              onProgress: (p) => progress.update(`request ${p.requestId}: Gleaner is still mapping ${input.url}`),
            });
            return text(renderMap(mapped, input));
          } catch (err) {
            if (err instanceof GleanerTimeoutError) return text(stillRunning(err, 'map'));
            throw err;
          }
        },
        { idFirst: true },
      ),
  );

  server.registerTool(
    'get_result',
    {
      title: 'Get a request result',
      description:
        'Reads a Gleaner request by its ID: whether it is still running, and its content once it is done (a crawl\'s pages also while it runs). Use it for a request an earlier call left running (also one cancelled or timed out: its ID is in that call\'s progress messages), or to read on where a long answer was cut: with start_index (and the same pages, for a document), or for a crawl or map with the cursor (and start_index) the cut names.',
      inputSchema: getResultInput,
      annotations: { title: 'Get a request result', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    (input, extra) => run(extra, `Reading request ${input.request_id}`, ({ client }) => readResult(client, input)),
  );

  return server;
}

/**
 * The results of a crawl or batch from `cursor` on, read a few at a time until they would fill
 * `maxLength` characters (or no more are listed), with its latest state.
 */
async function readCrawlResults(client: GleanerClient, state: CrawlStatus, kind: 'crawl' | 'batch', cursor: number, maxLength: number): Promise<CrawlResults> {
  // About one result per 2,000 characters of answer: pages are often longer, rarely much shorter.
  const chunk = Math.min(100, Math.max(5, Math.ceil(maxLength / 2_000)));
  const entries: CrawlResults['entries'] = [];
  let latest = state;
  let chars = 0;
  let more = true;
  while (more && chars < maxLength) {
    latest = await client.getCrawl(state.request_id, String(cursor + entries.length), kind, chunk);
    entries.push(...latest.pages);
    chars += latest.pages.reduce((n, p) => n + (p.status === 'completed' ? (p.content.markdown ?? p.content.text ?? '').length : 0) + 200, 0);
    more = latest.pages.length === chunk && latest.next !== null;
  }
  return { kind, status: latest, entries, cursor, more };
}

async function readResult(client: GleanerClient, input: GetResultInput): Promise<CallToolResult> {
  // Gleaner writes request ids in lower case; a UUID read back in upper case is the same one.
  const id = input.request_id.toLowerCase();
  const kinds = input.kind ? [input.kind] : (['scrape', 'parse_document', 'crawl', 'map'] as const);
  const cursor = Number(input.cursor ?? 0);
  for (const kind of kinds) {
    try {
      if (kind === 'crawl' || kind === 'batch') {
        const state = await client.getCrawl(id, '0', kind, 0);
        return text(renderCrawl(await readCrawlResults(client, state, kind, cursor, input.max_length), input, input.start_index));
      }
      if (kind === 'map') {
        const status = await client.getMap(id);
        if (status.status === 'failed') return errorText(`Map request ${id} failed: ${status.error ?? 'the map failed'}`);
        if (status.status !== 'completed') return text(`Map request ${id} is still running. Call get_result again in a little while.`);
        return text(renderMap(status, input, cursor));
      }
      if (kind === 'scrape') {
        const status = await client.getScrape(id);
        if (status.status === 'failed') return errorText(`Scrape request ${id} failed: ${status.error}`);
        if (status.status !== 'completed') return text(`Scrape request ${id} is still ${status.status}. Call get_result again in a little while.`);
        return text(renderPage(status as ScrapeCompletedStatus, input, input.start_index));
      }
      if (kind === 'parse_document') {
        const status = await client.getParse(id);
        if (status.status === 'FAILED') return errorText(`Document request ${id} failed: ${status.error ?? 'processing failed'}${status.details?.length ? ` (${status.details.join('; ')})` : ''}`);
        if (status.status === 'PROCESSING') {
          const pages = status.pagesTotal ? ` (${status.pagesDone ?? 0} of ${status.pagesTotal} pages parsed)` : '';
          return text(`Document request ${id} is still being parsed${pages}. Call get_result again in a little while.`);
        }
        return text(renderDocument(parseStatusDocument(status), { pages: input.pages, max_length: input.max_length, startIndex: input.start_index }));
      }
      const status = await client.getSelect(id);
      if (status.status === 'failed') return errorText(`Select request ${id} failed (HTTP ${status.status_code ?? 500}): ${status.details ?? 'processing failed'}`);
      if (status.status !== 'completed') return text(`Select request ${id} is still ${status.status}.`);
      return text(renderSelection(null, null, status, { include_html: false, max_length: input.max_length }));
    } catch (err) {
      // Not this kind of request: try the next one.
      if (!input.kind && err instanceof GleanerApiError && err.status === 404) continue;
      throw err;
    }
  }
  return errorText(
    `No scrape, parse_document, crawl or map request has the ID ${id} (or it has expired: scrape results are kept 15 hours, documents 7 days, crawls and maps 24 hours after they end). For a select request, pass kind "select"; for a batch, kind "batch".`,
  );
}

function text(value: string): CallToolResult {
  return { content: [{ type: 'text', text: value }] };
}

function errorText(value: string): CallToolResult {
  return { content: [{ type: 'text', text: value }], isError: true };
}

function stillRunning(err: GleanerTimeoutError, kind: ResumableKind): string {
  return `Gleaner is still working on request ${err.requestId} after ${Math.round(err.waitedMs / 1000)} s. Call get_result with request_id "${err.requestId}" and kind "${kind}" later to read the result.`;
}

/** The tool error of a call ended by the host's shutdown: what it had started goes on, and how to read it. */
function shuttingDown(started: ToolCall['started']): string {
  const first = 'Gleaner is shutting down (its gateway is stopping), so this call ends here.';
  if (started.length === 0) return `${first} Nothing was started: call the tool again once Gleaner is back.`;
  const each = started.map(({ id, kind }) => resumeHint(id, kind)).join('; ');
  return `${first} What it started goes on in Gleaner: once Gleaner is back, ${each}.`;
}

function abortError(): Error {
  const err = new Error('cancelled');
  err.name = 'AbortError';
  return err;
}

/** `work` over `items`, at most `limit` at once; results in the order of `items`. */
async function mapBounded<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}
