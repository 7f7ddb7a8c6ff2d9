/**
 * Operator command line (INTERFACE.md): `pnpm gleaner <command>`. Every command exits non-zero
 * with a one-line error on bad input; commands that create a secret print it as the last line.
 * `scrape` and `parse` are user commands: they talk to a gateway (or parse a local file here)
 * and need neither Redis nor GLEANER_SECRET.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { DOCUMENT_TYPES, GleanerApiError, GleanerClient, GleanerJobFailedError, GleanerProtocolError, GleanerTimeoutError, type DocumentType, type ScrapeRequest } from '@gleaner/client';
import { commonEnvSchema, createRedis, loadConfig, waitForRedis, type CommonConfig } from '@gleaner/platform';
import { AccountError, createStores, LLM_PROVIDERS, LlmKeyError, SCOPES, type LlmProvider, type Scope } from '@gleaner/store';
import Joi from 'joi';

class UsageError extends Error {}

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

function required(flags: Record<string, string>, name: string): string {
  const v = flags[name];
  if (!v || v === 'true') throw new UsageError(`--${name} is required`);
  return v;
}

const DEFAULT_GATEWAY_URL = 'http://127.0.0.1:8080';
/** Status polls of the user commands; most requests finish inside the gateway's 20 s window anyway. */
const USER_POLL_MS = 5_000;

const USAGE = `usage: gleaner <command>
  accounts create <name>
  accounts set-rate-limit <name> <requestsPerMinute>
  keys create --account <name> [--scopes scrape,parse,account]
  keys list --account <name>
  keys revoke <keyId>
  llm-keys add --account <name> --provider ${LLM_PROVIDERS.join('|')} --key <secret> [--model <m>] [--base-url <url>] [--label <text>]
user commands (gateway at GLEANER_URL, default ${DEFAULT_GATEWAY_URL}, key in GLEANER_API_KEY):
  scrape <url> [--markdown] [--llm <prompt>]   prints the text, the markdown, or the LLM output JSON
         [--render auto|true|false] [--wait-for <ms>] [--wait-for-selector <css>] [--timeout <ms>]
  parse <url-or-file> [--markdown]             a local file is parsed here, without the server;
                                               progress (pages done/total) goes to stderr`;

async function runUserCommand(command: 'scrape' | 'parse', positional: string[], flags: Record<string, string>): Promise<void> {
  const [target, extra] = positional;
  if (!target || extra !== undefined) throw new UsageError(command === 'scrape' ? 'scrape <url> [--markdown] [--llm <prompt>]' : 'parse <url-or-file> [--markdown]');
  const markdown = flags.markdown === 'true';
  if (command === 'parse' && !/^https?:\/\//i.test(target)) return parseLocalFile(target, markdown);
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
  const result = await client.parseAndWait(
    { url: target, output: markdown ? 'markdown' : 'plain', ...declaredType(new URL(target).pathname) },
    { pollMs: USER_POLL_MS, onProgress: (p) => (p.pagesTotal ? progress.pages(p.pagesDone ?? 0, p.pagesTotal) : waiting('parsing')) },
  );
  progress.done();
  await print(result.data);
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
  if (flags['wait-for-selector'] !== undefined) out.wait_for_selector = required(flags, 'wait-for-selector');
  return out;
}

function gatewayClient(): GleanerClient {
  const apiKey = process.env.GLEANER_API_KEY;
  if (!apiKey) throw new UsageError('GLEANER_API_KEY is required (a key with the scrape or parse scope)');
  return new GleanerClient({ baseUrl: process.env.GLEANER_URL || DEFAULT_GATEWAY_URL, apiKey });
}

/** The file's extension as the parser's type hint, when it is one the API knows. */
function declaredType(fileName: string): { type?: DocumentType } {
  const ext = path.extname(fileName).slice(1).toLowerCase();
  return (DOCUMENT_TYPES as readonly string[]).includes(ext) ? { type: ext as DocumentType } : {};
}

/**
 * Parses a local file in this process with the same library the parser worker uses. OCR (a
 * tesseract pool, about 200 MB a worker) starts only when a page needs it, and is closed after.
 */
async function parseLocalFile(file: string, markdown: boolean): Promise<void> {
  // pnpm runs the script from the repository root; relative paths mean the caller's directory.
  const fullPath = path.resolve(process.env.INIT_CWD ?? process.cwd(), file);
  const info = await stat(fullPath).catch(() => null);
  if (!info?.isFile()) throw new UsageError(`no such file '${file}'`);
  const { createLazyOcrEngine, parseDocument } = await import('@gleaner/document-extract');
  const lazyOcr = createLazyOcrEngine();
  try {
    const result = await parseDocument(await readFile(fullPath), {
      output: markdown ? 'markdown' : 'plain',
      declaredType: declaredType(file).type,
      ocr: lazyOcr,
      onProgress: (done, total) => progress.pages(done, total),
    });
    progress.done();
    await print(result.text);
  } catch (err) {
    // The parser's own verdict (400-001 unsupported or encrypted file, 500-001) is the one line to show.
    if (err instanceof Error && err.name === 'DocumentError') {
      const { code, details } = err as Error & { code: string; details: string[] };
      throw new UsageError(`${code}: ${err.message}${details.length ? ` (${details.join('; ')})` : ''}`);
    }
    throw err;
  } finally {
    await lazyOcr.close();
  }
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
  if (!group || group === 'help' || flags.help) {
    console.log(USAGE);
    return;
  }
  if (group === 'scrape' || group === 'parse') return runUserCommand(group, positional.slice(1), flags);
  // Before any connection: an unknown command is bad input, whether Redis answers or not.
  const command = `${group} ${action ?? ''}`.trim();
  if (!OPERATOR_COMMANDS.has(command)) throw new UsageError(`unknown command '${positional.join(' ')}' (run 'gleaner help' for the list)`);
  const config = loadConfig<CommonConfig>(Joi.object(commonEnvSchema));
  const redis = createRedis(config.REDIS_URL, 'worker', 'gleaner-cli');
  try {
    await waitForRedis(redis, 5_000).catch(() => {
      throw new UsageError(`cannot reach Redis at ${config.REDIS_URL}`);
    });
    const stores = createStores(redis, config.GLEANER_REDIS_PREFIX, config.GLEANER_SECRET);
    const accountByName = async (name: string) => {
      const account = await stores.accounts.getAccountByName(name);
      if (!account) throw new UsageError(`no account named '${name}'`);
      return account;
    };
    switch (command) {
      case 'accounts create': {
        if (!rest[0]) throw new UsageError('accounts create <name>');
        const account = await stores.accounts.createAccount(rest[0]);
        console.log(`account ${account.name} ${account.id}`);
        return;
      }
      case 'accounts set-rate-limit': {
        const [name, perMinute] = rest;
        if (!name || !perMinute) throw new UsageError('accounts set-rate-limit <name> <requestsPerMinute>');
        if (!/^\d+$/.test(perMinute)) throw new UsageError(`requestsPerMinute must be a whole number, not '${perMinute}'`);
        const account = await stores.accounts.setRateLimit((await accountByName(name)).id, Number(perMinute));
        console.log(`account ${account.name} rate limit ${account.rateLimitPerMinute}/min`);
        return;
      }
      case 'keys create': {
        const account = await accountByName(required(flags, 'account'));
        const scopes = (flags.scopes ?? SCOPES.join(',')).split(',').map((s) => s.trim()).filter(Boolean) as Scope[];
        const { apiKey, record } = await stores.accounts.createApiKey(account.id, scopes);
        console.log(`key ${record.keyId} scopes ${record.scopes.join(',')}`);
        console.log(apiKey);
        return;
      }
      case 'keys list': {
        const account = await accountByName(required(flags, 'account'));
        for (const k of await stores.accounts.listApiKeys(account.id)) {
          console.log(`${k.keyId}\t${k.scopes.join(',')}\t${k.revokedAt ? 'revoked' : 'active'}\t${k.preview}…`);
        }
        return;
      }
      case 'keys revoke': {
        if (!rest[0]) throw new UsageError('keys revoke <keyId>');
        const record = await stores.accounts.revokeApiKey(rest[0]);
        console.log(`key ${record.keyId} revoked`);
        return;
      }
      case 'llm-keys add': {
        const account = await accountByName(required(flags, 'account'));
        const provider = required(flags, 'provider');
        if (!(LLM_PROVIDERS as readonly string[]).includes(provider)) throw new UsageError(`--provider must be one of ${LLM_PROVIDERS.join(', ')}`);
        const summary = await stores.llmKeys.add(account.id, {
          provider: provider as LlmProvider,
          secret: required(flags, 'key'),
          model: flags.model,
          baseUrl: flags['base-url'],
          label: flags.label,
        });
        console.log(summary.id);
        return;
      }
      default:
        throw new UsageError(`unknown command '${command}'`);
    }
  } finally {
    redis.disconnect();
  }
}

main(process.argv.slice(2)).then(
  () => process.exit(0),
  (err) => {
    const known =
      err instanceof UsageError ||
      err instanceof AccountError ||
      err instanceof LlmKeyError ||
      err instanceof GleanerApiError ||
      err instanceof GleanerJobFailedError ||
      err instanceof GleanerTimeoutError ||
      err instanceof GleanerProtocolError ||
      (err as Error).name === 'ConfigError';
    progress.done();
    // INTERFACE.md: exactly one line on stderr, whatever went wrong.
    const message = String((err as Error)?.message ?? err).split('\n')[0];
    console.error(`error: ${known ? message : `unexpected failure: ${message}`}`);
    process.exit(1);
  },
);
