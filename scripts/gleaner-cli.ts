/**
 * Operator command line (INTERFACE.md): `pnpm gleaner <command>`. Every command exits non-zero
 * with a one-line error on bad input (2 with the usage when no command is given); commands that
 * create a secret print it as the last line. `scrape` and `parse` are user commands: they talk to
 * a gateway (a local file is uploaded to it) and need neither Redis nor GLEANER_SECRET.
 *
 * Started bundled (run.mjs), so the bundle loads the installed packages of everything it holds:
 * the operator commands (Redis, the stores) are a module of their own, bundled and loaded when a
 * command needs them (`loadOwnModule`), and `--help` or a user command starts in ~0.1 s of CPU.
 */
import { openAsBlob } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import {
  DOCUMENT_TYPES,
  GleanerApiError,
  GleanerClient,
  GleanerJobFailedError,
  GleanerProtocolError,
  GleanerTimeoutError,
  type DocumentType,
  type ParseProgress,
  type ScrapeRequest,
  type UploadedDocument,
} from '@gleaner/client';
import { buildFailure, ownCodeModuleUrl } from '../packages/platform/src/own-code-module.mjs';
import { CRAWL_USAGE, runCrawlCommand } from './cli/crawl-command.js';
import { requiredFlag, UsageError } from './cli/usage-error.js';

/** A module of ours, bundled on first use and kept while its sources are unchanged (as run.mjs does). */
async function loadOwnModule<M>(relativePath: string): Promise<M> {
  let moduleUrl: string;
  try {
    moduleUrl = await ownCodeModuleUrl(new URL(relativePath, import.meta.url));
  } catch (error) {
    throw new Error(`${relativePath} could not be built: ${buildFailure(error)}`);
  }
  return (await import(moduleUrl)) as M;
}

/** Flags that never take a value, so `parse --markdown report.pdf` keeps the file positional. */
const BOOLEAN_FLAGS = new Set(['markdown']);

function parseArgs(argv: string[]): { positional: string[]; flags: Record<string, string> } {
  const positional: string[] = [];
  const flags: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg.startsWith('--')) {
      const [name, inline] = arg.slice(2).split('=', 2);
      if (inline !== undefined) flags[name] = inline;
      else if (!BOOLEAN_FLAGS.has(name) && i + 1 < argv.length && !argv[i + 1].startsWith('--')) flags[name] = argv[++i];
      else flags[name] = 'true';
    } else positional.push(arg);
  }
  return { positional, flags };
}

const DEFAULT_GATEWAY_URL = 'http://127.0.0.1:8080';
/** SPEC "Limits": parser files up to 50 MB. */
const UPLOAD_MAX_BYTES = 50 * 1024 * 1024;
/** Status polls of the user commands; most requests finish inside the gateway's 20 s window anyway. */
const USER_POLL_MS = 5_000;

/** The providers `llm-keys add` takes (the store's LLM_PROVIDERS; a test keeps the two equal). */
const LLM_PROVIDER_NAMES = 'anthropic|openai-compatible';

const USAGE = `usage: gleaner <command>
  accounts create <name>
  accounts set-rate-limit <name> <requestsPerMinute>
  keys create --account <name> [--scopes scrape,parse,account]
  keys list --account <name>
  keys revoke <keyId>
  llm-keys add --account <name> --provider ${LLM_PROVIDER_NAMES} --key <secret> [--model <m>] [--base-url <url>] [--label <text>]
user commands (gateway at GLEANER_URL, default ${DEFAULT_GATEWAY_URL}, key in GLEANER_API_KEY):
  scrape <url> [--markdown] [--llm <prompt>]   prints the text, the markdown, or the LLM output JSON
         [--render auto|true|false] [--wait-for <ms>] [--wait-for-selector <css>] [--timeout <ms>]
  parse <url-or-file> [--markdown]             a local file is uploaded to the server (at most 50 MB);
                                               progress (pages done/total) goes to stderr
  ${CRAWL_USAGE}
                                               each page read is written as markdown under --out
                                               (default ./crawl-<host>); progress on stderr`;

async function runUserCommand(command: 'scrape' | 'parse', positional: string[], flags: Record<string, string>): Promise<void> {
  const [target, extra] = positional;
  if (!target || extra !== undefined) throw new UsageError(command === 'scrape' ? 'scrape <url> [--markdown] [--llm <prompt>]' : 'parse <url-or-file> [--markdown]');
  const markdown = flags.markdown === 'true';
  const client = gatewayClient();
  const started = Date.now();
  const waiting = (note: string) => progress.update(`${note} (${Math.round((Date.now() - started) / 1000)} s)`);
  if (command === 'scrape') {
    const llm = flags.llm;
    if (llm === 'true' || llm === '') throw new UsageError('--llm needs a prompt');
    const result = await client.scrapeAndWait(
      { url: target, output_type: markdown ? 'markdown' : 'plaintext', ...(llm ? { use_llm: true, prompt: llm } : {}), ...renderFlags(flags) },
      { pollMs: USER_POLL_MS, onProgress: () => waiting('scraping') },
    );
    progress.done();
    await print(llm ? JSON.stringify(result.llm_output ?? {}, null, 2) : markdown ? (result.content.markdown ?? result.content.text) : result.content.text);
    return;
  }
  const output = markdown ? 'markdown' : 'plain';
  const wait = { pollMs: USER_POLL_MS, onProgress: (p: ParseProgress) => (p.pagesTotal ? progress.pages(p.pagesDone ?? 0, p.pagesTotal) : waiting('parsing')) };
  const result = /^https?:\/\//i.test(target)
    ? await client.parseAndWait({ url: target, output, ...declaredType(new URL(target).pathname) }, wait)
    : await client.parseFileAndWait(await localDocument(target), { output, ...declaredType(target) }, wait);
  progress.done();
  await print(result.data);
}

/**
 * A local file to upload, read from disk as it is sent (a Blob backed by the file, not its bytes
 * in memory). Files over the service's 50 MB are refused here, before anything is sent.
 */
async function localDocument(file: string): Promise<UploadedDocument> {
  // pnpm runs the script from the repository root; relative paths mean the caller's directory.
  const fullPath = path.resolve(process.env.INIT_CWD ?? process.cwd(), file);
  const info = await stat(fullPath).catch(() => null);
  if (!info?.isFile()) throw new UsageError(`no such file '${file}'`);
  if (info.size > UPLOAD_MAX_BYTES) throw new UsageError(`'${file}' is ${(info.size / 1024 / 1024).toFixed(1)} MB: the service parses files of at most 50 MB`);
  return { name: path.basename(fullPath), data: await openAsBlob(fullPath) };
}

/** `--render`, `--wait-for`, `--wait-for-selector`, `--timeout` as scrape request fields (the API checks the ranges). */
function renderFlags(flags: Record<string, string>): Pick<ScrapeRequest, 'render_js' | 'wait_for' | 'wait_for_selector' | 'timeout'> {
  const out: Pick<ScrapeRequest, 'render_js' | 'wait_for' | 'wait_for_selector' | 'timeout'> = {};
  if (flags.render !== undefined) {
    const modes: Record<string, 'auto' | boolean> = { auto: 'auto', true: true, false: false };
    if (!(flags.render in modes)) throw new UsageError('--render takes auto, true or false');
    out.render_js = modes[flags.render];
  }
  const milliseconds = (name: string) => {
    if (!/^\d+$/.test(flags[name])) throw new UsageError(`--${name} takes a number of milliseconds`);
    return Number(flags[name]);
  };
  if (flags['wait-for'] !== undefined) out.wait_for = milliseconds('wait-for');
  if (flags.timeout !== undefined) out.timeout = milliseconds('timeout');
  if (flags['wait-for-selector'] !== undefined) out.wait_for_selector = requiredFlag(flags, 'wait-for-selector');
  return out;
}

function gatewayClient(): GleanerClient {
  const apiKey = process.env.GLEANER_API_KEY;
  if (!apiKey) throw new UsageError('GLEANER_API_KEY is required (a key with the scrape or parse scope)');
  const baseUrl = process.env.GLEANER_URL || DEFAULT_GATEWAY_URL;
  // fetch says only "fetch failed": name the address tried and the variable that sets it.
  const fetchOrExplain: typeof fetch = async (input, init) => {
    try {
      return await fetch(input, init);
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      const reason = cause?.code ?? cause?.message ?? (err as Error).message;
      throw new UsageError(`cannot reach the gateway at ${baseUrl} (${reason}): is it running? GLEANER_URL sets its address (default ${DEFAULT_GATEWAY_URL})`);
    }
  };
  return new GleanerClient({ baseUrl, apiKey, fetch: fetchOrExplain });
}

/** The file's extension as the parser's type hint, when it is one the API knows. */
function declaredType(fileName: string): { type?: DocumentType } {
  const ext = path.extname(fileName).slice(1).toLowerCase();
  return (DOCUMENT_TYPES as readonly string[]).includes(ext) ? { type: ext as DocumentType } : {};
}

/**
 * Progress on stderr, so stdout stays the document. Shown for multi-page work only, at most once
 * a second (plus the last page); on a terminal it rewrites one line.
 */
const progress = {
  lastAt: 0,
  shown: false,
  pages(done: number, total: number) {
    if (total < 2) return;
    this.update(`pages ${done}/${total}`, done === total);
  },
  update(text: string, force = false) {
    if (!force && Date.now() - this.lastAt < 1000) return;
    this.lastAt = Date.now();
    this.shown = true;
    process.stderr.write(process.stderr.isTTY ? `\r${text}\u001b[K` : `${text}\n`);
  },
  done() {
    if (this.shown && process.stderr.isTTY) process.stderr.write('\n');
    this.shown = false;
  },
};

/** Resolves once the text is handed to the OS: the process exits right after main returns. */
function print(text: string): Promise<void> {
  return new Promise((resolve, reject) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`, (err) => (err ? reject(err) : resolve())));
}

/** The operator commands (they work on Redis directly); `scrape` and `parse` go through a gateway. */
const OPERATOR_COMMANDS = new Set(['accounts create', 'accounts set-rate-limit', 'keys create', 'keys list', 'keys revoke', 'llm-keys add']);

async function main(argv: string[]): Promise<void> {
  const { positional, flags } = parseArgs(argv);
  const [group, action, ...rest] = positional;
  if (group === 'help' || flags.help) {
    console.log(USAGE);
    return;
  }
  if (!group) throw new NoCommandError();
  if (group === 'scrape' || group === 'parse') return runUserCommand(group, positional.slice(1), flags);
  if (group === 'crawl') {
    // pnpm runs the script from the repository root; relative paths mean the caller's directory.
    return print(await runCrawlCommand(gatewayClient(), positional.slice(1), flags, process.env.INIT_CWD ?? process.cwd(), renderFlags(flags)));
  }
  // Before any connection: an unknown command is bad input, whether Redis answers or not.
  const command = `${group} ${action ?? ''}`.trim();
  if (!OPERATOR_COMMANDS.has(command)) throw new UsageError(`unknown command '${positional.join(' ')}' (run 'gleaner help' for the list)`);
  const { runOperatorCommand } = await loadOwnModule<typeof import('./cli/operator-commands.js')>('./cli/operator-commands.ts');
  await runOperatorCommand(command, rest, flags);
}

/** No command at all: the usage on stderr and exit code 2, as command-line tools do. */
class NoCommandError extends Error {}

main(process.argv.slice(2)).then(
  () => process.exit(0),
  (err) => {
    if (err instanceof NoCommandError) {
      console.error(USAGE);
      process.exit(2);
    }
    const known =
      // By name: the operator commands' module has its own copy of these classes.
      ['UsageError', 'ConfigError'].includes((err as Error)?.name) ||
      err instanceof GleanerApiError ||
      err instanceof GleanerJobFailedError ||
      err instanceof GleanerTimeoutError ||
      err instanceof GleanerProtocolError;
    progress.done();
    // INTERFACE.md: exactly one line on stderr, whatever went wrong.
    const message = String((err as Error)?.message ?? err).split('\n')[0];
    console.error(`error: ${known ? message : `unexpected failure: ${message}`}`);
    process.exit(1);
  },
);
