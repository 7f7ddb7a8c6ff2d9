import robotsParserModule from 'robots-parser';
import { fetchBinary, FetchError, type TransferOptions } from '@gleaner/safe-fetch';
import { CRAWLER_PRODUCT_TOKEN } from './user-agent.js';

/**
 * What a site's robots.txt said, as a crawl keeps it (in Redis, so every slice of the crawl reads
 * the file once): its text, or what its absence means (RFC 9309 §2.3.1).
 */
export type RobotsFile =
  | { kind: 'rules'; text: string }
  /** 4xx ("unavailable"): the crawler may access any resource. */
  | { kind: 'allow-all'; note: string }
  /** 5xx, 429 or no answer ("unreachable"): the crawler must assume a complete disallow. */
  | { kind: 'disallow-all'; note: string };

/** RFC 9309 §2.5: a crawler must parse at least the first 500 KiB; what follows is ignored. */
export const ROBOTS_PARSED_BYTES = 500 * 1024;

/** The origin (`https://host:port`) whose robots.txt governs a URL. */
export function originOf(url: string): string {
  return new URL(url).origin;
}

/**
 * Fetches `<origin>/robots.txt` through the guarded fetch (redirects followed, five at most, each
 * hop's address checked), and reads its status as RFC 9309 says.
 */
export async function fetchRobotsFile(origin: string, options: TransferOptions): Promise<RobotsFile> {
  try {
    const file = await fetchBinary(`${origin}/robots.txt`, { ...options, maxBytes: 4 * ROBOTS_PARSED_BYTES, deadlineMs: options.deadlineMs ?? 15_000 });
    return { kind: 'rules', text: file.bytes.subarray(0, ROBOTS_PARSED_BYTES).toString('utf8') };
  } catch (err) {
    if (!(err instanceof FetchError)) throw err;
    const status = err.statusCode;
    if (status !== undefined && status >= 400 && status < 500 && status !== 429) return { kind: 'allow-all', note: `robots.txt answered HTTP ${status}` };
    if (err.kind === 'too_large') return { kind: 'disallow-all', note: 'robots.txt is larger than 2 MB' };
    if (err.kind === 'blocked_address' || err.kind === 'invalid_url') throw err;
    return { kind: 'disallow-all', note: `robots.txt could not be read (${err.message})` };
  }
}

/** The part of robots-parser's Robot we use (its bundled typings do not resolve under NodeNext). */
interface ParsedRobots {
  isAllowed(url: string, ua?: string): boolean | undefined;
  getMatchingLineNumber(url: string, ua?: string): number;
  getCrawlDelay(ua?: string): number | undefined;
  getSitemaps(): string[];
}
const robotsParser = robotsParserModule as unknown as (url: string, contents: string) => ParsedRobots;

/** A robots.txt as rules for our user agent. */
export class RobotsRules {
  private readonly parsed: ParsedRobots | null;

  constructor(
    origin: string,
    readonly file: RobotsFile,
  ) {
    this.parsed = file.kind === 'rules' ? robotsParser(`${origin}/robots.txt`, file.text) : null;
  }

  /** Null when our user agent may fetch `url`, else why not (listed with the refused URL). */
  refusal(url: string): string | null {
    if (this.file.kind === 'allow-all') return null;
    if (this.file.kind === 'disallow-all') return this.file.note;
    // /robots.txt itself is always allowed (RFC 9309 §2.2.2); undefined: another origin's URL.
    if (this.parsed!.isAllowed(url, CRAWLER_PRODUCT_TOKEN) === false) {
      const line = this.parsed!.getMatchingLineNumber(url, CRAWLER_PRODUCT_TOKEN);
      return `robots.txt disallows it${line > 0 ? ` (line ${line})` : ''}`;
    }
    return null;
  }

  /** `Crawl-delay` of the group that applies to us, in ms (not part of RFC 9309, widely used). */
  get crawlDelayMs(): number | undefined {
    const seconds = this.parsed?.getCrawlDelay(CRAWLER_PRODUCT_TOKEN);
    return seconds !== undefined && Number.isFinite(seconds) && seconds > 0 ? Math.round(seconds * 1000) : undefined;
  }

  /** `Sitemap:` lines (they apply whatever the group). */
  get sitemaps(): string[] {
    return this.parsed?.getSitemaps() ?? [];
  }
}
