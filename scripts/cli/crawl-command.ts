import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { CrawlPage, CrawlRequest, GleanerClient } from '@gleaner/client';
import { UsageError } from './usage-error.js';

export const CRAWL_USAGE = 'crawl <url> [--out <dir>] [--limit <n>] [--depth <n>] [--include <regex>] [--exclude <regex>] [--sitemap include|skip|only] [--concurrency <n>]';

/**
 * Where a page's markdown goes under the output folder: its host, then its path (`/docs/a` →
 * `docs/a.md`, `/` and `/docs/` → `index.md` inside them); a query adds a short hash, so two
 * pages never share a file. Every segment is made safe for a file system.
 */
export function markdownFileOf(url: string): string {
  const u = new URL(url);
  const safe = (s: string) => decodeURIComponent(s).replace(/[^\p{L}\p{N}._-]+/gu, '_').replace(/^\.+/, '_').slice(0, 120) || '_';
  const segments = u.pathname.split('/').filter(Boolean).map(safe);
  const directory = u.pathname.endsWith('/') || segments.length === 0;
  const base = directory ? 'index' : segments.pop()!.replace(/\.html?$/i, '');
  const query = u.search ? `-${createHash('sha1').update(u.search).digest('hex').slice(0, 8)}` : '';
  return path.join(safe(u.host), ...segments, `${base}${query}.md`);
}

function wholeNumber(flags: Record<string, string>, name: string): number | undefined {
  if (flags[name] === undefined) return undefined;
  if (!/^\d+$/.test(flags[name])) throw new UsageError(`--${name} takes a whole number`);
  return Number(flags[name]);
}

/**
 * `gleaner crawl <url>`: starts a crawl, writes each page read as a markdown file under the
 * output folder as soon as it is listed, and shows the crawl's counts on stderr. stdout gets one
 * line: the folder and how the crawl ended. Ctrl-C cancels the crawl (what was read stays).
 */
export async function runCrawlCommand(client: GleanerClient, positional: string[], flags: Record<string, string>, cwd: string, render: Partial<CrawlRequest>): Promise<string> {
  const [url, extra] = positional;
  if (!url || extra !== undefined) throw new UsageError(CRAWL_USAGE);
  if (!/^https?:\/\//i.test(url)) throw new UsageError('crawl takes an http or https URL');
  const sitemap = flags.sitemap;
  if (sitemap !== undefined && sitemap !== 'include' && sitemap !== 'skip' && sitemap !== 'only') throw new UsageError('--sitemap takes include, skip or only');
  const out = path.resolve(cwd, flags.out && flags.out !== 'true' ? flags.out : `crawl-${new URL(url).hostname}`);
  const request: CrawlRequest = {
    url,
    output_type: 'markdown',
    ...(wholeNumber(flags, 'limit') !== undefined ? { limit: wholeNumber(flags, 'limit') } : {}),
    ...(wholeNumber(flags, 'depth') !== undefined ? { max_depth: wholeNumber(flags, 'depth') } : {}),
    ...(wholeNumber(flags, 'concurrency') !== undefined ? { max_concurrency: wholeNumber(flags, 'concurrency') } : {}),
    ...(flags.include ? { include_paths: [flags.include] } : {}),
    ...(flags.exclude ? { exclude_paths: [flags.exclude] } : {}),
    ...(sitemap ? { sitemap: sitemap as CrawlRequest['sitemap'] } : {}),
    ...render,
  };
  const accepted = await client.crawl(request);
  const id = accepted.request_id;
  process.stderr.write(`crawl ${id} started; pages go to ${out}\n`);
  const cancel = () => {
    process.stderr.write('\ncancelling the crawl…\n');
    client.cancelCrawl(id).catch(() => undefined);
  };
  process.once('SIGINT', cancel);
  let written = 0;
  const tty = process.stderr.isTTY;
  let lastShown = 0;
  const show = (text: string) => {
    if (Date.now() - lastShown < 1000) return;
    lastShown = Date.now();
    process.stderr.write(tty ? `\r${text}\u001b[K` : `${text}\n`);
  };
  try {
    const final = await client.followCrawl(id, {
      pollMs: 2_000,
      timeoutMs: 24 * 3600_000,
      onPage: async (page: CrawlPage) => {
        if (page.status !== 'completed') return;
        const file = path.join(out, markdownFileOf(page.url));
        await mkdir(path.dirname(file), { recursive: true });
        await writeFile(file, page.content.markdown ?? page.content.text);
        written++;
      },
      onProgress: ({ counts }) => show(`${written} written, ${counts.completed} read, ${counts.failed} failed, ${counts.skipped} skipped, ${counts.queued} queued`),
    });
    if (tty && lastShown) process.stderr.write('\n');
    const c = final.counts;
    return `${out}: ${written} pages written (${c.failed} failed, ${c.skipped} skipped); crawl ${final.status}${final.reason ? `: ${final.reason}` : ''}`;
  } finally {
    process.removeListener('SIGINT', cancel);
  }
}
