import dns from 'node:dns/promises';
import net from 'node:net';
import { isAddressAllowed, type AddressPolicy } from './address-policy.js';
import { FetchError } from './fetch-error.js';
import { PRIVATE_ADDRESS_REFUSED } from './public-address.js';

/**
 * Parses an absolute http(s) URL. WHATWG parsing also canonicalises IPv4 written in decimal
 * (`2130706433`), octal (`0177.0.0.1`) or hex, and IPv6 forms, so later checks see plain IPs.
 */
export function parseHttpUrl(url: string, requireHttps = false): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new FetchError('invalid_url', 'not a valid absolute URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new FetchError('invalid_url', `scheme ${parsed.protocol.replace(':', '')} is not allowed (http and https only)`);
  }
  if (requireHttps && parsed.protocol !== 'https:') throw new FetchError('invalid_url', 'an https URL is required');
  // Credentials in a URL end up in logs and records; a page that needs them is not public anyway.
  if (parsed.username || parsed.password) throw new FetchError('invalid_url', 'URLs with credentials are not allowed');
  return parsed;
}

/** The host of a parsed URL as the resolver and the agents see it (IPv6 without brackets). */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

export interface PublicUrlOptions extends Partial<AddressPolicy> {
  requireHttps?: boolean;
  /** Bound on the DNS lookup; getaddrinfo itself cannot be cancelled. Default 5 s. */
  dnsTimeoutMs?: number;
}

async function resolveAll(host: string, timeoutMs: number): Promise<string[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new FetchError('dns', `resolving ${host} took longer than ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    const answers = await Promise.race([dns.lookup(host, { all: true, verbatim: true }), timeout]);
    return answers.map((a) => a.address);
  } catch (err) {
    if (err instanceof FetchError) throw err;
    throw new FetchError('dns', `could not resolve host ${host} (${(err as NodeJS.ErrnoException).code ?? 'error'})`, undefined, { cause: err });
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Submit-time check (gateway, for target and webhook URLs): scheme, then every address the host
 * resolves to must be allowed. It gives callers an early, clear 400; the connection-time agents
 * check again, which is what actually stops DNS rebinding.
 */
export async function assertPublicUrl(url: string, options: PublicUrlOptions = {}): Promise<void> {
  const parsed = parseHttpUrl(url, options.requireHttps);
  const host = hostOf(parsed);
  const addresses = net.isIP(host) ? [host] : await resolveAll(host, options.dnsTimeoutMs ?? 5000);
  const policy: AddressPolicy = { allowPrivateNetworks: options.allowPrivateNetworks ?? false, allowList: options.allowList, denyList: options.denyList };
  // The refused address stays out of the message: it would tell a caller about internal DNS.
  if (addresses.length === 0 || addresses.some((a) => !isAddressAllowed(a, policy))) {
    throw new FetchError('blocked_address', `${host} ${PRIVATE_ADDRESS_REFUSED}`);
  }
}
