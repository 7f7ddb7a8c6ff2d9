import net from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * What a refused target is told: that it resolves to an address this deployment keeps its
 * fetches away from, which the operator may allow (GLEANER_ALLOW_PRIVATE_NETWORKS, for
 * development), not that the URL is broken.
 */
export const PRIVATE_ADDRESS_REFUSED = 'resolves to a private or reserved address, which this deployment does not allow';

/**
 * IPv4-compatible IPv6 (`::a.b.c.d`, deprecated by RFC 4291). ipaddr.js ranks `::7f00:1` as
 * ordinary unicast, and WHATWG URL parsing turns `[::127.0.0.1]` into exactly that form; some
 * stacks still route it to the embedded IPv4 address, so it is never treated as public.
 */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

/**
 * True only for public unicast addresses: false for loopback, RFC 1918, CGNAT, link-local
 * (including 169.254.169.254), unique-local (including fd00:ec2::254), unspecified, broadcast,
 * multicast, documentation/benchmark/reserved ranges, NAT64/6to4/Teredo, and for IPv4-mapped and
 * IPv4-compatible IPv6 forms of non-public IPv4 addresses. Only canonical IP strings count
 * (`net.isIP`); anything else (hostnames, `0177.0.0.1`) is not an address and so not public.
 */
export function isPublicAddress(ip: string): boolean {
  if (net.isIP(ip) === 0) return false;
  let addr = ipaddr.parse(ip);
  if (addr instanceof ipaddr.IPv6) {
    if (addr.isIPv4MappedAddress()) addr = addr.toIPv4Address();
    else if (addr.match(IPV4_COMPATIBLE)) return false;
  }
  return addr.range() === 'unicast';
}

/** True for `::a.b.c.d` forms, which request-filtering-agent's own ranges let through as unicast. */
export function isIPv4CompatibleAddress(ip: string): boolean {
  if (net.isIP(ip) !== 6) return false;
  const addr = ipaddr.parse(ip);
  return addr instanceof ipaddr.IPv6 && addr.match(IPV4_COMPATIBLE);
}

/** Whether `ip` is one of the addresses of `list`, compared in canonical form (`::0:1` is `::1`). */
export function addressInList(ip: string, list: readonly string[]): boolean {
  if (net.isIP(ip) === 0) return false;
  const canonical = ipaddr.parse(ip).toString();
  return list.some((entry) => net.isIP(entry) !== 0 && ipaddr.parse(entry).toString() === canonical);
}
