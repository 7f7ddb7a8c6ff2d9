import { gunzipSync } from 'node:zlib';
import { fetchBinary, FetchError, type TransferOptions } from '@gleaner/safe-fetch';

/** What one sitemap file lists: pages (`<urlset>`, or a text file of URLs) or other sitemaps (`<sitemapindex>`). */
export interface SitemapFile {
  kind: 'urlset' | 'index';
  locs: string[];
}

/** Bounds of reading a site's sitemaps: they are the site's to write, and can be enormous. */
export interface SitemapBounds {
  /** Sitemap files fetched, index files included. */
  maxFiles: number;
  /** Page URLs read, over every file. */
  maxUrls: number;
  /** One file's size, decompressed (the protocol's own limit is 50 MB). */
  maxFileBytes: number;
}

export const DEFAULT_SITEMAP_BOUNDS: SitemapBounds = { maxFiles: 50, maxUrls: 100_000, maxFileBytes: 50 * 1024 * 1024 };

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decodeXmlText(text: string): string {
  return text
    .replace(/^\s*<!\[CDATA\[([\s\S]*?)\]\]>\s*$/, '$1')
    .replace(/&(?:#x([0-9a-f]+)|#(\d+)|(amp|lt|gt|quot|apos));/gi, (m, hex: string, dec: string, name: string) =>
      hex ? String.fromCodePoint(parseInt(hex, 16)) : dec ? String.fromCodePoint(Number(dec)) : (ENTITIES[name.toLowerCase()] ?? m),
    )
    .trim();
}

/**
 * Reads a sitemap (sitemaps.org protocol): the `<loc>` of each `<url>` of a `<urlset>`, or of each
 * `<sitemap>` of a `<sitemapindex>`; a file without markup is the protocol's text form, one URL a
 * line. Namespaced tags (`<sm:loc>`) are read too. Not an XML parser: a sitemap is a flat list,
 * and a lenient reader keeps the many slightly broken ones useful.
 */
export function parseSitemap(text: string): SitemapFile {
  const head = text.slice(0, 4096);
  if (!head.includes('<')) {
    const locs = text.split(/\r?\n/).map((l) => l.trim()).filter((l) => /^https?:\/\//i.test(l));
    return { kind: 'urlset', locs };
  }
  const kind = /<(?:\w+:)?sitemapindex[\s>]/i.test(text) ? 'index' : 'urlset';
  const locs: string[] = [];
  const loc = /<(?:\w+:)?loc>([\s\S]*?)<\/(?:\w+:)?loc>/gi;
  for (let m = loc.exec(text); m; m = loc.exec(text)) {
    const url = decodeXmlText(m[1]);
    if (url) locs.push(url);
  }
  return { kind, locs };
}

/** A gzip file (`sitemap.xml.gz`), told by its magic bytes rather than its name or type. */
function decompressed(bytes: Buffer, maxBytes: number): Buffer {
  if (bytes.length < 2 || bytes[0] !== 0x1f || bytes[1] !== 0x8b) return bytes;
  try {
    return gunzipSync(bytes, { maxOutputLength: maxBytes });
  } catch (err) {
    throw new FetchError('too_large', `the gzip sitemap is larger than ${Math.round(maxBytes / 1024 / 1024)} MB decompressed or is not valid gzip (${(err as Error).message})`);
  }
}

/** One sitemap file fetched (guarded like every fetch) and read. */
export async function fetchSitemap(url: string, options: TransferOptions, maxFileBytes: number): Promise<SitemapFile> {
  const file = await fetchBinary(url, { ...options, maxBytes: maxFileBytes, deadlineMs: options.deadlineMs ?? 60_000 });
  return parseSitemap(decompressed(file.bytes, maxFileBytes).toString('utf8'));
}

export interface SitemapReading {
  /** Page URLs, in the order the files list them, without repeats. */
  urls: string[];
  /** Sitemap files read. */
  files: number;
  /** Files that could not be read, with why ("<url>: target answered HTTP 404"). */
  problems: string[];
  /** A bound stopped the reading (more files or URLs were listed). */
  truncated: boolean;
}

/**
 * Every page URL the sitemaps at `roots` list (robots.txt `Sitemap:` lines, else
 * `/sitemap.xml`), following index files breadth first, each file fetched once, within `bounds`
 * and by `deadlineAt` (ms since the epoch).
 */
export async function readSitemaps(roots: string[], options: TransferOptions, bounds: SitemapBounds = DEFAULT_SITEMAP_BOUNDS, deadlineAt = Infinity): Promise<SitemapReading> {
  const queue = [...new Set(roots)];
  const fetched = new Set<string>(queue);
  const urls = new Set<string>();
  const problems: string[] = [];
  let files = 0;
  let truncated = false;
  while (queue.length > 0) {
    if (files >= bounds.maxFiles || urls.size >= bounds.maxUrls || Date.now() >= deadlineAt) {
      truncated = true;
      break;
    }
    const url = queue.shift()!;
    files++;
    let file: SitemapFile;
    try {
      const leftMs = deadlineAt === Infinity ? undefined : Math.max(1_000, deadlineAt - Date.now());
      file = await fetchSitemap(url, { ...options, ...(leftMs && (!options.deadlineMs || leftMs < options.deadlineMs) ? { deadlineMs: leftMs } : {}) }, bounds.maxFileBytes);
    } catch (err) {
      if (!(err instanceof FetchError)) throw err;
      problems.push(`${url}: ${err.message}`);
      continue;
    }
    for (const loc of file.locs) {
      if (file.kind === 'index') {
        if (!fetched.has(loc)) {
          fetched.add(loc);
          queue.push(loc);
        }
      } else if (urls.size < bounds.maxUrls) {
        urls.add(loc);
      } else {
        truncated = true;
        break;
      }
    }
  }
  return { urls: [...urls], files, problems, truncated };
}
