import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLogger } from '@gleaner/platform';
import { loadParserWorkerConfig, startParserWorker } from '@gleaner/parser-worker';
import { loadScraperWorkerConfig, startScraperWorker, type RunningService } from '@gleaner/scraper-worker';
import { startFakeAnthropic, type AnthropicScript, type FakeProvider } from './fakes/llm-providers.js';
import { gleanerCli } from './support/cli.js';
import { serviceEnv } from './support/env.js';
import { GatewayHarness, type TestAccount } from './support/gateway.js';
import { html, startPageServer } from './support/page-server.js';
import { REPO_ROOT, settledWithin, startProcess } from './support/processes.js';
import { deleteKeysWithPrefix, testPrefix } from './support/redis.js';
import { wordF1 } from './support/word-f1.js';

/** The user commands of `pnpm gleaner` through a real gateway: URLs, and local files uploaded to it. */
const DOCS = path.resolve(REPO_ROOT, '../shared/corpus/docs');
const PAGE_BREAK = '=== Page Break ===';
const reference = (file: string) => fs.readFileSync(path.join(DOCS, `${file}.ref.txt`), 'utf8');

describe('scrape and parse through the gateway', () => {
  const prefix = testPrefix('cli-user');
  let h: GatewayHarness;
  let scraper: RunningService;
  let parser: RunningService;
  let site: Awaited<ReturnType<typeof startPageServer>>;
  let llm: FakeProvider<AnthropicScript>;
  let account: TestAccount;
  let env: Record<string, string>;
  let scratch: string;

  beforeAll(async () => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-cli-'));
    const store = { DOCUMENT_STORE: 'local', DOCUMENT_STORE_DIR: path.join(scratch, 'store') };
    site = await startPageServer({
      '/article': html(
        '<main><article><h1>Gleaning fields</h1><p>Gleaning is the act of collecting leftover crops from fields after they have been harvested, a practice described in many old texts.</p><p>Today volunteers glean to feed families.</p></article></main>',
        '<title>Gleaning fields</title><meta name="description" content="About gleaning">',
      ),
      '/notes.txt': (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(fs.readFileSync(path.join(DOCS, 'txt/rfc2965.txt'))),
    });
    llm = await startFakeAnthropic();
    // Window 0: every submit answers 202, so the commands follow their requests by polling.
    h = await GatewayHarness.start(prefix, { SYNC_WINDOW_MS: '0', ...store });
    const logger = createLogger('cli-user-test', 'error');
    scraper = await startScraperWorker(loadScraperWorkerConfig(serviceEnv(prefix, { SCRAPER_CONCURRENCY: '2', SCRAPER_EXTRACT_THREADS: '1' })), logger);
    parser = await startParserWorker(loadParserWorkerConfig(serviceEnv(prefix, { PARSER_CONCURRENCY: '1', ...store })), logger);
    account = await h.account('cli-user');
    await h.stores.llmKeys.add(account.accountId, { provider: 'anthropic', secret: 'sk-ant-cli-test', baseUrl: llm.baseUrl, model: 'claude-test' });
    env = { GLEANER_URL: h.url, GLEANER_API_KEY: account.apiKey };
  }, 60_000);

  afterAll(async () => {
    await scraper?.stop();
    await parser?.stop();
    await h?.stop();
    await site?.close();
    await llm?.close();
    await deleteKeysWithPrefix(prefix);
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('scrape prints the text, or the markdown', async () => {
    const text = await gleanerCli(['scrape', `${site.url}/article`], env);
    expect(text.stdout).toContain('Today volunteers glean to feed families.');
    expect(text.stdout).not.toContain('<p>');
    const markdown = await gleanerCli(['scrape', `${site.url}/article`, '--markdown'], env);
    expect(markdown.stdout).toMatch(/^# Gleaning fields$/m);
  }, 60_000);

  it('scrape passes --render, --timeout and --wait-for-selector on, and refuses a bad --render or --timeout', async () => {
    const text = await gleanerCli(['scrape', `${site.url}/article`, '--render', 'false', '--timeout', '5000'], env);
    expect(text.stdout).toContain('Today volunteers glean to feed families.');
    await expect(gleanerCli(['scrape', `${site.url}/article`, '--render', 'false', '--wait-for-selector', '#x'], env)).rejects.toMatchObject({
      code: 1,
      stderr: "error: Gleaner API answered 400: E009: wait_for and wait_for_selector need rendering: render_js must be 'auto' or true\n",
    });
    await expect(gleanerCli(['scrape', `${site.url}/article`, '--render', 'maybe'], env)).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('--render takes auto, true or false') });
    await expect(gleanerCli(['scrape', `${site.url}/article`, '--timeout', '5s'], env)).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('--timeout takes a number of milliseconds') });
  }, 60_000);

  it('scrape --llm prints the language-model output as JSON', async () => {
    const { stdout } = await gleanerCli(['scrape', `${site.url}/article`, '--llm', 'Give the topic as {"answer": string}'], env);
    expect(JSON.parse(stdout)).toEqual({ answer: 'stand-in answer' });
    expect(llm.requests.length).toBeGreaterThan(0);
  }, 60_000);

  it('parse of a local file uploads it to the server: a txt with its page breaks', async () => {
    const file = 'txt/rfc2965.txt';
    const { stdout } = await gleanerCli(['parse', path.join(DOCS, file)], env);
    const formFeeds = fs.readFileSync(path.join(DOCS, file), 'latin1').split('\f').length - 1;
    expect(stdout.split(PAGE_BREAK).length - 1).toBe(formFeeds);
    expect(wordF1(stdout, reference(file))).toBeGreaterThan(0.95);
  }, 60_000);

  it('parses an uploaded docx, as plain text and as markdown (the extension is the type hint)', async () => {
    const file = 'docx/nwe-test04-headers.docx';
    const plain = await gleanerCli(['parse', path.join(DOCS, file)], env);
    expect(wordF1(plain.stdout, reference(file))).toBeGreaterThan(0.9);
    const markdown = await gleanerCli(['parse', '--markdown', path.join(DOCS, file)], env);
    // The document's big bold line becomes a heading, its italics emphasis.
    expect(markdown.stdout).toMatch(/^#{1,6}\s+Molière$/m);
    expect(markdown.stdout).toContain('_Les Précieuses ridicules._');
  }, 60_000);

  it('fails with one line for a missing file, a file over 50 MB, or a file the service refuses', async () => {
    await expect(gleanerCli(['parse', '/nonexistent/report.pdf'], env)).rejects.toMatchObject({ code: 1, stderr: "error: no such file '/nonexistent/report.pdf'\n" });
    const big = path.join(scratch, 'big.pdf');
    fs.writeFileSync(big, Buffer.alloc(50 * 1024 * 1024 + 1));
    await expect(gleanerCli(['parse', big], env)).rejects.toMatchObject({ code: 1, stderr: `error: '${big}' is 50.0 MB: the service parses files of at most 50 MB\n` });
    const gif = path.join(scratch, 'photo.gif');
    fs.writeFileSync(gif, Buffer.concat([Buffer.from('GIF89a'), Buffer.alloc(64, 1)]));
    await expect(gleanerCli(['parse', gif], env)).rejects.toMatchObject({ code: 1, stderr: 'error: Gleaner API answered 400: 400-001: Invalid file type (a GIF image)\n' });
  }, 60_000);

  it('parse of a URL goes through the server', async () => {
    const { stdout } = await gleanerCli(['parse', `${site.url}/notes.txt`], env);
    expect(stdout.split(PAGE_BREAK).length - 1).toBe(fs.readFileSync(path.join(DOCS, 'txt/rfc2965.txt'), 'latin1').split('\f').length - 1);
    expect(wordF1(stdout, reference('txt/rfc2965.txt'))).toBeGreaterThan(0.95);
  }, 60_000);

  describe('llm-keys add (operator command, straight to the store)', () => {
    const OWNER = 'cli-llm-owner';
    const SECRET_KEY = 'sk-ant-cli-added-SECRET-4b9d2e71';
    let owner: TestAccount;
    const cliEnv = () => serviceEnv(prefix);
    const listed = async () => ((await (await fetch(`${h.url}/account/llm-keys`, { headers: { 'x-api-key': owner.apiKey } })).json()) as { keys: Array<Record<string, unknown>> }).keys;

    beforeAll(async () => {
      owner = await h.account(OWNER);
    });

    it('prints the new id last; the key serves an LLM scrape against the provider; the secret is printed nowhere', async () => {
      const added = await gleanerCli(['llm-keys', 'add', '--account', OWNER, '--provider', 'anthropic', '--key', SECRET_KEY, '--base-url', llm.baseUrl, '--model', 'claude-cli-model', '--label', 'from the cli'], cliEnv());
      const id = added.stdout.trim().split('\n').at(-1)!;
      expect(id).toMatch(/^llmk_/);
      expect(added.stderr).toBe('');
      expect(await listed()).toEqual([expect.objectContaining({ id, provider: 'anthropic', model: 'claude-cli-model', label: 'from the cli', masked: `••••${SECRET_KEY.slice(-4)}` })]);

      const before = llm.requests.length;
      const scraped = await gleanerCli(['scrape', `${site.url}/article`, '--llm', 'Give the topic as {"answer": string}'], { GLEANER_URL: h.url, GLEANER_API_KEY: owner.apiKey });
      expect(JSON.parse(scraped.stdout)).toEqual({ answer: 'stand-in answer' });
      const calls = llm.requests.slice(before);
      expect(calls.map((r) => r.headers.authorization)).toEqual([`Bearer ${SECRET_KEY}`]);
      expect(calls[0].body?.model).toBe('claude-cli-model');
      for (const text of [added.stdout, added.stderr, scraped.stdout, scraped.stderr, JSON.stringify(await listed())]) expect(text).not.toContain(SECRET_KEY);
    }, 60_000);

    it('bad input (unknown provider, ftp, credentials or malformed base URL, unknown account) exits 1 with one line on stderr and stores nothing', async () => {
      const cases: Array<[string[], string]> = [
        [['--account', OWNER, '--provider', 'gemini'], 'error: --provider must be one of anthropic, openai-compatible\n'],
        [['--account', OWNER, '--provider', 'openai-compatible', '--base-url', 'ftp://llm.example.net/v1'], 'error: base URL must be http(s)\n'],
        [['--account', OWNER, '--provider', 'openai-compatible', '--base-url', 'http://user:pw@127.0.0.1:8000/v1'], "error: base URL must not carry a user name or password (the provider's secret goes in the key)\n"],
        [['--account', OWNER, '--provider', 'openai-compatible', '--base-url', 'http://[::1/v1'], 'error: base URL is not a valid absolute URL\n'],
        [['--account', 'no-such-account', '--provider', 'anthropic'], "error: no account named 'no-such-account'\n"],
      ];
      for (const [args, stderr] of cases) {
        const outcome = await gleanerCli(['llm-keys', 'add', '--key', SECRET_KEY, ...args], cliEnv()).then(
          () => 'exited 0',
          (err: { code?: number; stdout?: string; stderr?: string }) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }),
        );
        expect(outcome).toEqual({ code: 1, stdout: '', stderr });
      }
      expect(await listed()).toHaveLength(1);
    }, 60_000);
  });

  it('reports API errors in one line, and needs a key', async () => {
    await expect(gleanerCli(['scrape', 'ftp://example.com/'], env)).rejects.toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: Gleaner API answered 400: E003: .*\n$/) });
    await expect(gleanerCli(['scrape', `${site.url}/article`], { GLEANER_URL: h.url, GLEANER_API_KEY: '' })).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('GLEANER_API_KEY is required') });
  });
});

describe('progress of a long document parsed through the server', () => {
  const prefix = testPrefix('cli-progress');
  let h: GatewayHarness;
  let account: TestAccount;

  beforeAll(async () => {
    // No parser worker on this prefix: the test plays it by writing the request record, which is
    // all the status endpoint reads, so the document is "long" for exactly as long as needed.
    h = await GatewayHarness.start(prefix, { SYNC_WINDOW_MS: '0' });
    account = await h.account('cli-progress');
  });

  afterAll(async () => {
    await h?.stop();
    await deleteKeysWithPrefix(prefix);
  });

  it('shows pages done/total on stderr while the server works, then prints only the text on stdout', async () => {
    const cli = startProcess('pnpm', ['--silent', 'gleaner', 'parse', 'http://127.0.0.1:9/annual-report.pdf'], { GLEANER_URL: h.url, GLEANER_API_KEY: account.apiKey });
    // 'close': the exit code once all of stdout and stderr has been read.
    const exited = new Promise<number | null>((resolve) => cli.child.once('close', (code) => resolve(code)));
    const streams = { stdout: '', stderr: '' };
    cli.child.stdout!.on('data', (chunk: Buffer) => (streams.stdout += chunk.toString()));
    cli.child.stderr!.on('data', (chunk: Buffer) => (streams.stderr += chunk.toString()));
    try {
      // The submit answered 202 (window 0): its job waits in the parse queue under the request's id.
      let requestId: string | undefined;
      for (let i = 0; i < 300 && !requestId; i++) {
        requestId = (await h.gateway.deps.producers.parse.queue.getWaiting())[0]?.id;
        if (!requestId) await new Promise((r) => setTimeout(r, 100));
      }
      expect(requestId).toBeDefined();
      await h.stores.records.markProcessing('parse', requestId!);
      await h.stores.records.setProgress('parse', requestId!, 3, 12);
      // The CLI polls the status endpoint every 5 s (the first poll after 5 s).
      await cli.waitFor(/pages 3\/12\n/, 20_000);
      await h.stores.records.complete('parse', requestId!, { data: `First page.\n\n${PAGE_BREAK}\n\nSecond page.`, type: 'pdf', pages: 2 });
      expect(await settledWithin(exited, 20_000, 'still running')).toBe(0);
      // Piped (not a terminal): one progress line per update, on stderr; stdout is the document alone.
      expect(streams.stderr).toBe('pages 3/12\n');
      expect(streams.stdout).toBe(`First page.\n\n${PAGE_BREAK}\n\nSecond page.\n`);
    } finally {
      await cli.kill();
    }
  }, 60_000);
});
