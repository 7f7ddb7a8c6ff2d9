import { assertPublicUrl, FetchError, parseHttpUrl, PRIVATE_ADDRESS_REFUSED } from '@gleaner/safe-fetch';

export type UrlProblem = 'invalid' | 'unresolvable' | 'not_public' | 'not_https';

/** What to tell a caller about a target URL that fails the check. */
export const URL_PROBLEM_MESSAGES: Record<UrlProblem, string> = {
  invalid: 'url must be an absolute http or https URL',
  unresolvable: 'the host of url could not be resolved',
  not_public: `url ${PRIVATE_ADDRESS_REFUSED}`,
  not_https: 'url must use https',
};

/**
 * What to tell a caller about a webhook URL that fails the check; `field` names it the way the
 * family's errors do (`webhook`, `'webhook'`, `url`).
 */
export function webhookProblemMessage(field: string, problem: UrlProblem): string {
  switch (problem) {
    case 'invalid':
      return `${field} must be an absolute https URL`;
    case 'unresolvable':
      return `the host of ${field} could not be resolved`;
    case 'not_public':
      return `${field} ${PRIVATE_ADDRESS_REFUSED}`;
    case 'not_https':
      return `${field} must use https`;
  }
}

/**
 * A URL's form alone, no DNS: an absolute http(s) URL of sane length without credentials
 * (safe-fetch's rules, which checkUrl applies too, credentials after its https check); parsed, or
 * null for anything else.
 */
export function httpUrlOrNull(url: unknown): URL | null {
  if (typeof url !== 'string' || url.length === 0 || url.length > 4096) return null;
  try {
    return parseHttpUrl(url);
  } catch (err) {
    if (err instanceof FetchError) return null;
    throw err;
  }
}

/**
 * Submit-time check of a target or webhook URL: scheme, DNS resolution to public addresses only
 * (unless private networks are allowed), https for webhooks. The workers check again at
 * connection time for every hop, which is what actually stops DNS rebinding.
 */
export async function checkUrl(url: unknown, opts: { allowPrivateNetworks: boolean; requireHttps: boolean }): Promise<UrlProblem | null> {
  if (typeof url !== 'string' || url.length === 0 || url.length > 4096) return 'invalid';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'invalid';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'invalid';
  if (opts.requireHttps && parsed.protocol !== 'https:' && !opts.allowPrivateNetworks) return 'not_https';
  try {
    await assertPublicUrl(url, { allowPrivateNetworks: opts.allowPrivateNetworks, requireHttps: opts.requireHttps && !opts.allowPrivateNetworks });
    return null;
  } catch (err) {
    if (err instanceof FetchError) return err.kind === 'blocked_address' ? 'not_public' : err.kind === 'dns' ? 'unresolvable' : 'invalid';
    throw err;
  }
}
