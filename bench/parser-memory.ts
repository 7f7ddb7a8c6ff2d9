/**
 * Peak memory of parser-worker over both document corpora: a real parser-worker process, started
 * as the image starts it (run.mjs, the image's allocator environment) with its defaults
 * (PARSER_CONCURRENCY = cores - 1, at least 1; PARSER_OCR_WORKERS = cores), parses through the API every file of
 * ../shared/corpus/docs (every type, OCR included, encrypted files refused) and of
 * ../shared/corpus/docs-structure (tables, headings), in markdown, all submitted at once and
 * served by a local server. The figure is the process's own high-water mark (VmHWM, Linux). A
 * second run sets PARSER_MEMORY_MARK_MB (OCR pages one at a time above it) to show its trade.
 * Part of bench:documents; on its own: node --import tsx bench/parser-memory.ts
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createStores } from '@gleaner/store';
import { Redis } from 'ioredis';
import { startGatewayProcess } from '../tests/support/gateway-process.js';
import { filesUnder, startPageServer } from '../tests/support/page-server.js';
import { REPO_ROOT, startService } from '../tests/support/processes.js';
import { STRUCTURE_CORPUS } from '../tests/support/structure-corpus.js';
import { defaultParseConcurrency } from '../services/parser-worker/src/config.js';

const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/11';
const SECRET = 'bench-secret-0123456789abcdef';
const DOCS_CORPUS = path.resolve(REPO_ROOT, '../shared/corpus/docs');
const TARGET_MB = 450;
/**
 * Status reads a poll: the oldest requests, as jobs end roughly in the order they were taken. At
 * four a poll (16 answers a second) the run's time was the poll's: the corpora's text documents
 * alone, three times over, took 26 s with one parse thread or two, against 23 and 20 s at 40.
 */
const POLLED_REQUESTS = 40;

export interface ParserMemory {
  files: number;
  /** Parse threads and OCR workers: the defaults (cores) unless `settings` set them. */
  parseThreads: number;
  ocrWorkers: number;
  peakMb: number;
  /** From the first request to the last answer. */
  seconds: number;
  /** The highest RSS sampled (every 100 ms) and the files then being parsed (the oldest not yet answered). */
  sampled: { mb: number; files: string[] };
  /** Files that did not parse, or were not refused, as the manifest expects. */
  unexpected: string[];
  settings: string;
}

interface CorpusFile {
  /** Path under the page server: `docs/…` or `docs-structure/…`. */
  served: string;
  type: string;
  /** Set for files the manifest expects to be refused (protected PDFs). */
  refusal?: string;
}

function corpusFiles(): CorpusFile[] {
  const manifest = (dir: string) => JSON.parse(fs.readFileSync(path.join(dir, 'MANIFEST.json'), 'utf8')) as { files: Array<{ path: string; type?: string; expected?: string }> };
  return [
    // The API names images by their format (the manifest's "image" is not a request type).
    ...manifest(DOCS_CORPUS).files.map((f) => ({ served: `docs/${f.path}`, type: f.type === 'image' ? path.extname(f.path).slice(1).toLowerCase() : f.type!, refusal: f.expected })),
    ...manifest(STRUCTURE_CORPUS).files.map((f) => ({ served: `docs-structure/${f.path}`, type: path.extname(f.path).slice(1).toLowerCase() })),
  ];
}

/** The environment the image gives every service (ENV of infra/Dockerfile's last stage): its allocator settings change the figure by ~150 MB. */
function imageEnvironment(): Record<string, string> {
  const dockerfile = fs.readFileSync(path.join(REPO_ROOT, 'infra/Dockerfile'), 'utf8');
  return Object.fromEntries([...dockerfile.slice(dockerfile.lastIndexOf('\nFROM ')).matchAll(/^ENV\s+([A-Za-z_]\w*)=(\S+)/gm)].map((m) => [m[1], m[2]]));
}

/** A process's resident set now, or its high-water mark, in MB. */
function processMemoryMb(pid: number, field: 'VmRSS' | 'VmHWM'): number | null {
  try {
    return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;
  } catch {
    return null;
  }
}

/** `settings`: parser-worker settings on top of its defaults (PARSER_MEMORY_MARK_MB). */
export async function measureParserMemory(settings: Record<string, string> = {}): Promise<ParserMemory> {
  process.env.GLEANER_TEST_REDIS_URL ??= REDIS_URL;
  const { deleteKeysWithPrefix } = await import('../tests/support/redis.js');
  const prefix = `bench-memory-${randomBytes(4).toString('hex')}`;
  const files = corpusFiles();
  const imageEnv = imageEnvironment();
  const corpora = path.dirname(DOCS_CORPUS);
  const server = await startPageServer({}, filesUnder(corpora));
  const env = { REDIS_URL, GLEANER_REDIS_PREFIX: prefix, GLEANER_SECRET: SECRET, NODE_ENV: 'production', LOG_LEVEL: 'warn', GLEANER_ALLOW_PRIVATE_NETWORKS: 'true', HOST: '127.0.0.1' };
  const gateway = await startGatewayProcess({ ...env, SYNC_WINDOW_MS: '0' });
  // One account stands for many here: without the per-account cap every parse slot is busy, the worst case for memory.
  const worker = startService('parser-worker', { ...env, ...imageEnv, ACCOUNT_MAX_CONCURRENT_JOBS: '0', ...settings });
  const redis = new Redis(REDIS_URL);
  let sampler: NodeJS.Timeout | undefined;
  try {
    await worker.waitFor(/parser-worker ready/);
    const pid = worker.child.pid!;
    const stores = createStores(redis, prefix, SECRET);
    const account = await stores.accounts.createAccount('bench-memory');
    await stores.accounts.setRateLimit(account.id, 100_000);
    const { apiKey } = await stores.accounts.createApiKey(account.id);
    const api = async (route: string, body?: unknown) => {
      const res = await fetch(`${gateway.url}${route}`, { method: body ? 'POST' : 'GET', headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, body: body ? JSON.stringify(body) : undefined });
      return (await res.json()) as { status?: string; requestId?: string };
    };
    const parseThreads = Number(settings.PARSER_CONCURRENCY ?? defaultParseConcurrency());
    // Submission order is the queue's: the worker takes the oldest waiting jobs first.
    const pending: Array<{ id: string; file: CorpusFile }> = [];
    const unexpected: string[] = [];
    const settle = (file: CorpusFile, completed: boolean) => {
      if (completed === Boolean(file.refusal)) unexpected.push(file.served);
    };
    let sampled = { mb: 0, files: [] as string[] };
    sampler = setInterval(() => {
      const mb = processMemoryMb(pid, 'VmRSS');
      if (mb !== null && mb > sampled.mb) sampled = { mb, files: pending.slice(0, parseThreads).map((p) => p.file.served) };
    }, 100);
    const started = Date.now();
    for (const file of files) {
      const answer = await api('/documents/parse', { url: `${server.url}/${file.served}`, type: file.type, output: 'markdown' });
      if (answer.status === 'PROCESSING' && answer.requestId) pending.push({ id: answer.requestId, file });
      else settle(file, answer.status === 'COMPLETED');
    }
    const deadline = Date.now() + 20 * 60_000;
    while (pending.length > 0) {
      if (Date.now() > deadline) throw new Error(`not parsed within 20 minutes: ${pending.map((p) => p.file.served).join(', ')}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
      for (const entry of pending.slice(0, POLLED_REQUESTS)) {
        const record = await api(`/documents/status/${entry.id}`);
        if (record.status === 'PROCESSING') continue;
        pending.splice(pending.indexOf(entry), 1);
        settle(entry.file, record.status === 'COMPLETED');
      }
    }
    const seconds = (Date.now() - started) / 1000;
    clearInterval(sampler);
    const peakMb = processMemoryMb(pid, 'VmHWM') ?? Number.NaN;
    return { files: files.length, parseThreads, ocrWorkers: Number(settings.PARSER_OCR_WORKERS ?? os.availableParallelism()), peakMb, seconds, sampled, unexpected, settings: Object.entries({ ...imageEnv, ...settings }).map(([k, v]) => `${k}=${v}`).join(' ') };
  } finally {
    clearInterval(sampler);
    redis.disconnect();
    await worker.kill();
    await gateway.process.kill();
    await server.close();
    await deleteKeysWithPrefix(prefix, REDIS_URL);
  }
}

export function reportParserMemory(m: ParserMemory): void {
  if (m.unexpected.length > 0) console.log(`Memory: these files did not parse (or were not refused) as the manifest expects: ${m.unexpected.join(', ')}`);
  console.log(`Memory: highest sample ${m.sampled.mb.toFixed(0)} MB while parsing ${m.sampled.files.join(', ')}`);
  console.log(`Memory: peak RSS of the parser-worker process (${m.parseThreads} parse thread${m.parseThreads === 1 ? '' : 's'}, ${m.ocrWorkers} OCR workers; ${m.settings}) parsing all ${m.files} files of both corpora through the API (markdown) in ${m.seconds.toFixed(0)} s: ${m.peakMb.toFixed(0)} MB   target <= ${TARGET_MB} MB: ${m.peakMb <= TARGET_MB ? 'PASS' : 'FAIL'}`);
}

/** The memory mark the benchmark also runs with: what it costs in time, what it saves in memory (docs/operations.md). */
export const BENCH_MEMORY_MARK_MB = '400';

/** With the defaults, then with PARSER_MEMORY_MARK_MB set. */
export async function reportParserMemoryRuns(): Promise<void> {
  reportParserMemory(await measureParserMemory());
  console.log('');
  reportParserMemory(await measureParserMemory({ PARSER_MEMORY_MARK_MB: BENCH_MEMORY_MARK_MB }));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await reportParserMemoryRuns();
}
