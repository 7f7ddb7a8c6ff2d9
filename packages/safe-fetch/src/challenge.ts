import type { IncomingHttpHeaders } from 'node:http';

/**
 * Markers specific to bot-protection interstitials, safe to trust on any page: exact titles of
 * Cloudflare's challenge and block pages, its challenge bootstrap (`_cf_chl_opt`, the
 * `orchestrate` path; ordinary pages only carry `/cdn-cgi/challenge-platform/scripts/jsd/`),
 * Imperva's incident page, DataDome's captcha host, Akamai's edgesuite error reference.
 */
const STRONG_MARKERS = [
  /<title>\s*Just a moment\.\.\.\s*<\/title>/i,
  /<title>\s*Attention Required! \| Cloudflare\s*<\/title>/i,
  /window\._cf_chl_opt\b|\/cdn-cgi\/challenge-platform\/h\/[a-z]\/orchestrate\//i,
  /Incapsula incident ID/i,
  /\b(?:geo|ct)\.captcha-delivery\.com\b/i,
  /errors(?:\.|&#46;)edgesuite(?:\.|&#46;)net/i,
];

/**
 * Imperva also injects its resource script into ordinary pages it protects, so this counts only
 * on an error answer or a page too small to be an article.
 */
const WEAK_MARKERS = [/\/_Incapsula_Resource\b/];
const SMALL_PAGE_BYTES = 16 * 1024;

export interface ResponseSample {
  statusCode: number;
  headers: IncomingHttpHeaders;
  /** The first bytes of the (decoded) body as latin1 text; markers are ASCII. */
  head: string;
  bodyBytes: number;
}

/** A bot-protection interstitial instead of the page: the target refused us, retrying won't help. */
export function isChallengePage(sample: ResponseSample): boolean {
  if (String(sample.headers['cf-mitigated'] ?? '').toLowerCase() === 'challenge') return true;
  if (STRONG_MARKERS.some((re) => re.test(sample.head))) return true;
  const weakApplies = sample.statusCode >= 400 || sample.bodyBytes <= SMALL_PAGE_BYTES;
  return weakApplies && WEAK_MARKERS.some((re) => re.test(sample.head));
}
