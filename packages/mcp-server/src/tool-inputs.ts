/**
 * The tools' input schemas. The SDK turns them into the JSON Schemas clients see (tools/list) and
 * validates every call against them before a tool runs; descriptions are written for a model.
 */
import { z } from 'zod/v4';
import { DOCUMENT_TYPES, type ScrapeRequest } from '@gleaner/client';

/** Longest text a tool answers with unless asked otherwise: about 5,000 tokens. */
export const DEFAULT_MAX_LENGTH = 20_000;
/** scrape_many's cap for each page, so several pages fit together. */
export const DEFAULT_MAX_LENGTH_EACH = 5_000;
export const MAX_MAX_LENGTH = 200_000;
/** scrape_many takes at most this many URLs in one call. */
export const MAX_URLS = 20;

const httpUrl = z
  .string()
  .max(2048)
  .regex(/^https?:\/\/\S+$/i, 'must be an http:// or https:// URL')
  .describe('Absolute http(s) URL.');

/**
 * The scrape API's own options (POST /web-scrapper/), named as the API names them and sent to it
 * unchanged by `scrapeRequest`: an option the API gains is one line here, for scrape and
 * scrape_many alike.
 */
export const scrapeApiOptions = {
  use_cache: z
    .boolean()
    .optional()
    .describe('Return the result Gleaner cached for this URL in the last 15 days instead of fetching the page again (faster, but possibly stale). Fails if nothing is cached.'),
  prompt: z
    .string()
    .min(1)
    .max(10_000)
    .optional()
    .describe('LLM mode: an instruction for a language model that reads the page, e.g. "list every product with its price". The answer is the JSON it returns instead of the page text. Needs a language-model key registered on the Gleaner account.'),
  schema: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('LLM mode only: a JSON Schema the extracted JSON must follow, e.g. {"type":"object","properties":{"price":{"type":"number"}}}.'),
  llm_key_id: z.string().min(1).max(200).optional().describe('LLM mode only: which of the account\'s language-model keys to use (default: the most recently added).'),
  render_js: z
    .union([z.literal('auto'), z.boolean()])
    .optional()
    .describe('Run the page in a headless browser first: "auto" (default) only when the page looks client-rendered (an app shell filled by script), true always (slower), false never.'),
  wait_for_selector: z.string().min(1).max(1000).optional().describe('Rendering: a CSS selector the page must contain before it is read (for content that appears late).'),
  wait_for: z.number().int().min(0).max(30_000).optional().describe('Rendering: milliseconds to wait after the page has loaded, before it is read.'),
  timeout: z.number().int().min(1_000).max(120_000).optional().describe('Milliseconds the page may take to load, static or rendered (default 30000).'),
};

/** How a page is shown to the model: not sent to Gleaner. */
const pagePresentation = {
  format: z.enum(['markdown', 'text']).default('markdown').describe('markdown keeps headings, lists, tables and links; text is plain text.'),
  include_links: z.boolean().default(false).describe("Also list the page's links (text, URL, internal or external)."),
  include_images: z.boolean().default(false).describe("Also list the page's images (URL and alt text)."),
};

function maxLength(defaultLength: number) {
  return z
    .number()
    .int()
    .min(100)
    .max(MAX_MAX_LENGTH)
    .default(defaultLength)
    .describe(`Longest answer, in characters, everything included: header, content, and links and images when asked for (default ${defaultLength}). Longer content is cut and the answer says how to read on.`);
}

export const scrapeInput = z.strictObject({
  url: httpUrl.describe('The web page to read (absolute http or https URL).'),
  ...scrapeApiOptions,
  ...pagePresentation,
  max_length: maxLength(DEFAULT_MAX_LENGTH),
});

export const scrapeManyInput = z.strictObject({
  urls: z
    .array(httpUrl)
    .min(1)
    .max(MAX_URLS)
    .describe(`The pages to read, 1 to ${MAX_URLS} absolute http(s) URLs. They are fetched a few at a time; a page that fails does not stop the others.`),
  ...scrapeApiOptions,
  ...pagePresentation,
  max_length: maxLength(DEFAULT_MAX_LENGTH_EACH).describe(`Longest answer for each page, in characters, its links and images included (default ${DEFAULT_MAX_LENGTH_EACH}).`),
});

export const selectInput = z.strictObject({
  url: httpUrl.describe('The web page to read (absolute http or https URL). JavaScript is not run.'),
  selector: z
    .string()
    .min(1)
    .max(2000)
    .describe('Which elements to return: a CSS selector (e.g. "table.prices tr", "h2 + p") or an XPath expression when it starts with "/", "./" or "(" (e.g. "//a[@rel=\'next\']/@href").'),
  include_html: z.boolean().default(false).describe('Also return the outer HTML of the matched elements (only their text by default).'),
  max_length: maxLength(DEFAULT_MAX_LENGTH),
});

const pagesInput = z
  .string()
  .regex(/^\s*\d+\s*(-\s*\d+\s*)?(,\s*\d+\s*(-\s*\d+\s*)?)*$/, 'must be page numbers and ranges such as "3" or "1-3,7"')
  .optional();

export const parseDocumentInput = z.strictObject({
  url: httpUrl.describe('URL of the document or image: PDF (text or scanned), Word (doc, docx), RTF, Excel (xlsx, xls), CSV, PowerPoint (pptx), OpenDocument (odt, ods, odp), EPUB, HTML, markdown, image for OCR (jpg, png, tiff, heic) or text file.'),
  type: z
    .enum(DOCUMENT_TYPES)
    .optional()
    .describe('A hint of the file type; Gleaner detects the real type from the file itself, so leave it out unless the URL is ambiguous.'),
  format: z.enum(['markdown', 'text']).default('markdown').describe('markdown marks headings and lists; text is plain text.'),
  pages: pagesInput.describe('Only these pages of a multi-page document, 1-based, e.g. "1-3,7" (default: all pages, up to max_length).'),
  max_length: maxLength(DEFAULT_MAX_LENGTH),
});

export const getResultInput = z.strictObject({
  request_id: z
    .string()
    // Both cases in the pattern itself: a JSON Schema pattern carries no flags.
    .regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, 'must be a Gleaner request ID (a UUID)')
    .describe('The request ID an earlier scrape, select or parse_document answer gave.'),
  kind: z
    .enum(['scrape', 'parse_document', 'select'])
    .optional()
    .describe('Which tool made the request; when left out, scrape and then parse_document are tried (select only when named: its status can be read 3 times).'),
  start_index: z.number().int().min(0).default(0).describe('Character offset to start from, to read on where a cut answer stopped.'),
  pages: pagesInput.describe('parse_document only: the pages the earlier answer showed ("1-3,7"), so that start_index reads on in them.'),
  ...pagePresentation,
  max_length: maxLength(DEFAULT_MAX_LENGTH),
});

export type ScrapeInput = z.infer<typeof scrapeInput>;
export type ScrapeManyInput = z.infer<typeof scrapeManyInput>;
export type SelectInput = z.infer<typeof selectInput>;
export type ParseDocumentInput = z.infer<typeof parseDocumentInput>;
export type GetResultInput = z.infer<typeof getResultInput>;
export type PagePresentation = Pick<ScrapeInput, 'format' | 'include_links' | 'include_images' | 'max_length'>;

/** The scrape API request for one URL: every option of `scrapeApiOptions` as given, plus what the presentation implies. */
export function scrapeRequest(url: string, input: Partial<Record<keyof typeof scrapeApiOptions, unknown>> & { format: 'markdown' | 'text' }): ScrapeRequest {
  const passed = Object.fromEntries(Object.keys(scrapeApiOptions).flatMap((name) => (input[name as keyof typeof scrapeApiOptions] === undefined ? [] : [[name, input[name as keyof typeof scrapeApiOptions]]])));
  return {
    url,
    ...passed,
    output_type: input.format === 'text' ? 'plaintext' : 'markdown',
    ...(input.prompt !== undefined ? { use_llm: true } : {}),
  };
}
