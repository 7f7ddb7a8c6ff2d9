import { getDomain } from 'tldts';

/** Absolute URL of `href` against `base`, or null for values that are not navigable URLs. */
export function absoluteUrl(href: string | null | undefined, base: string): string | null {
  const value = href?.trim();
  if (!value) return null;
  try {
    return new URL(value, base).href;
  } catch {
    return null;
  }
}

/**
 * Registrable domain (eTLD+1 by the public suffix list); hosts without one (IP addresses,
 * `localhost`, intranet names) compare by hostname.
 */
export function siteOf(url: string): string {
  const host = new URL(url).hostname.toLowerCase();
  return getDomain(host, { allowPrivateDomains: true }) ?? host;
}
