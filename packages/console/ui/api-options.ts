/**
 * The request fields the playground offers, one entry per API option: the form, the request body
 * and the curl command are all built from these lists, so a new option (render_js, say) is one
 * line here.
 */
export type OptionKind = 'url' | 'text' | 'longtext' | 'json' | 'boolean' | 'choice' | 'number' | 'lines';

export interface ApiOption {
  /** The JSON field name. */
  name: string;
  label: string;
  kind: OptionKind;
  required?: boolean;
  choices?: readonly string[];
  /** Form default; a choice's default is also what the API assumes, so it is not sent. */
  initial?: string | boolean;
  /** Shown and sent only while this boolean option is on. */
  onlyWith?: string;
  hint?: string;
  placeholder?: string;
}

export const SCRAPE_OPTIONS: readonly ApiOption[] = [
  { name: 'url', label: 'Page URL', kind: 'url', required: true, placeholder: 'https://example.com/article' },
  { name: 'output_type', label: 'Output', kind: 'choice', choices: ['plaintext', 'markdown'], initial: 'plaintext' },
  { name: 'use_cache', label: 'Use the cached result (every other field is ignored)', kind: 'boolean', initial: false },
  { name: 'webhook', label: 'Webhook URL (optional)', kind: 'url', placeholder: 'https://hooks.example.net/done' },
  { name: 'use_llm', label: 'Language-model extraction', kind: 'boolean', initial: false },
  { name: 'prompt', label: 'Prompt', kind: 'longtext', onlyWith: 'use_llm', required: true, placeholder: 'List the product names and prices' },
  { name: 'llm_key_id', label: 'LLM key id (optional; the newest key otherwise)', kind: 'text', onlyWith: 'use_llm' },
  { name: 'schema', label: 'Output JSON Schema (optional)', kind: 'json', onlyWith: 'use_llm', placeholder: '{"type":"object","properties":{}}' },
  { name: 'render_js', label: 'Render JavaScript in a browser', kind: 'choice', choices: ['auto', 'true', 'false'], initial: 'auto' },
  { name: 'wait_for_selector', label: 'Rendering: wait for this CSS selector (optional)', kind: 'text', placeholder: '#content article' },
  { name: 'wait_for', label: 'Rendering: wait this many ms after load (optional)', kind: 'number', placeholder: '1500' },
  { name: 'timeout', label: 'Timeout in ms (optional; default 30000, at most 120000)', kind: 'number', placeholder: '30000' },
];

/** A crawl of a site: where it starts, how far it goes, and the per-page options of a scrape. `lines`: one value a line, sent as a list. */
export const CRAWL_OPTIONS: readonly ApiOption[] = [
  { name: 'url', label: 'Start URL', kind: 'url', required: true, placeholder: 'https://docs.example.com/' },
  { name: 'limit', label: 'Pages to read at most (optional; default 100)', kind: 'number', placeholder: '100' },
  { name: 'max_depth', label: 'Link hops from the start page (optional)', kind: 'number', placeholder: '3' },
  { name: 'include_paths', label: 'Only paths matching (regular expressions, one a line; optional)', kind: 'lines', placeholder: '^/docs/' },
  { name: 'exclude_paths', label: 'Leave out paths matching (one a line; optional)', kind: 'lines', placeholder: '/archive/' },
  { name: 'sitemap', label: 'Sitemaps', kind: 'choice', choices: ['include', 'skip', 'only'], initial: 'include' },
  { name: 'output_type', label: 'Output', kind: 'choice', choices: ['plaintext', 'markdown'], initial: 'plaintext' },
  { name: 'render_js', label: 'Render JavaScript in a browser', kind: 'choice', choices: ['auto', 'true', 'false'], initial: 'auto' },
  { name: 'max_concurrency', label: 'Requests to the site at once (optional; default 5)', kind: 'number', placeholder: '5' },
  { name: 'webhook', label: 'Webhook URL (optional)', kind: 'url', placeholder: 'https://hooks.example.net/crawl' },
];

export const DOCUMENT_TYPES = ['pdf', 'doc', 'docx', 'jpg', 'jpeg', 'png', 'txt', 'tiff', 'tif', 'heic', 'xlsx', 'xls', 'ods', 'csv', 'pptx', 'odp', 'odt', 'rtf', 'epub', 'html', 'md'] as const;

/** Document parse by URL. A file upload (issue 29) is a second source beside `url`: see DocumentSource. */
export const PARSE_OPTIONS: readonly ApiOption[] = [
  { name: 'url', label: 'Document URL', kind: 'url', required: true, placeholder: 'https://example.com/report.pdf' },
  { name: 'type', label: 'Type (a hint: the kind is read from the bytes)', kind: 'choice', choices: DOCUMENT_TYPES, initial: 'pdf' },
  { name: 'output', label: 'Output', kind: 'choice', choices: ['plain', 'markdown'], initial: 'plain' },
  { name: 'webhook', label: 'Webhook URL (optional)', kind: 'url', placeholder: 'https://hooks.example.net/done' },
];

export type OptionValues = Record<string, string | boolean>;

export function initialValues(options: readonly ApiOption[]): OptionValues {
  return Object.fromEntries(options.map((o) => [o.name, o.initial ?? (o.kind === 'boolean' ? false : '')]));
}

export function isShown(option: ApiOption, values: OptionValues): boolean {
  return !option.onlyWith || values[option.onlyWith] === true;
}

/** The request body: shown fields that differ from the API's defaults; JSON fields parsed (a bad one throws). */
export function requestBody(options: readonly ApiOption[], values: OptionValues): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const option of options) {
    if (!isShown(option, values)) continue;
    const value = values[option.name];
    if (option.kind === 'boolean') {
      if (value === true) body[option.name] = true;
    } else if (typeof value === 'string' && value.trim() !== '') {
      if (option.kind === 'choice' && value === option.initial) continue;
      if (option.kind === 'number') {
        body[option.name] = Number(value);
      } else if (option.kind === 'choice' && (value === 'true' || value === 'false')) {
        // A yes/no choice beside a third value (render_js: auto, true, false) is a JSON boolean.
        body[option.name] = value === 'true';
      } else if (option.kind === 'lines') {
        const lines = value
          .split('\n')
          .map((line) => line.trim())
          .filter(Boolean);
        if (lines.length) body[option.name] = lines;
      } else if (option.kind === 'json') {
        try {
          body[option.name] = JSON.parse(value);
        } catch {
          throw new Error(`${option.label}: not valid JSON`);
        }
      } else {
        body[option.name] = option.kind === 'longtext' ? value : value.trim();
      }
    }
  }
  return body;
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The same request as a curl command; the key is left as $GLEANER_API_KEY, never written out. */
export function curlCommand(origin: string, path: string, body: Record<string, unknown>): string {
  return [`curl -s ${shellQuote(origin + path)}`, `-H "x-api-key: $GLEANER_API_KEY"`, `-H 'content-type: application/json'`, `-d ${shellQuote(JSON.stringify(body))}`].join(' \\\n  ');
}
