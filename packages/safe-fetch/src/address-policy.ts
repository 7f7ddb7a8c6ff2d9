import dns from 'node:dns';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import ipaddr from 'ipaddr.js';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent, type RequestFilteringAgentOptions } from 'request-filtering-agent';
import { addressInList, isIPv4CompatibleAddress, isPublicAddress } from './public-address.js';

/**
 * Which addresses a connection may reach: public unicast only, unless private networks are
 * allowed (development and tests). `allowList` / `denyList` hold exact IP addresses that refine
 * this; tests allow 127.0.0.1 and deny 127.0.0.2 to prove that every redirect hop is checked.
 */
export interface AddressPolicy {
  allowPrivateNetworks: boolean;
  allowList?: readonly string[];
  denyList?: readonly string[];
}

/** Marks our own refusals so they map to 'blocked_address' (got keeps a cause's `code`). */
export const BLOCKED_ADDRESS_CODE = 'ERR_GLEANER_BLOCKED_ADDRESS';

class BlockedAddressError extends Error {
  readonly code = BLOCKED_ADDRESS_CODE;
}

/** The submit-time form of the policy, same answers as the agents give at connection time. */
export function isAddressAllowed(ip: string, policy: AddressPolicy): boolean {
  if (addressInList(ip, policy.allowList ?? [])) return true;
  if (addressInList(ip, policy.denyList ?? [])) return false;
  return policy.allowPrivateNetworks || isPublicAddress(ip);
}

function canonicalList(list: readonly string[] | undefined, name: string): string[] {
  return (list ?? []).map((entry) => {
    // request-filtering-agent compares single addresses as raw strings, so hand it canonical ones.
    if (net.isIP(entry) === 0) throw new TypeError(`${name} holds exact IP addresses, got "${entry}"`);
    return ipaddr.parse(entry).toString();
  });
}

type LookupAll = (err: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void;
type LookupOne = (err: NodeJS.ErrnoException | null, address: string, family: number) => void;
type LookupFunction = (hostname: string, options: dns.LookupOptions, callback: LookupAll | LookupOne) => void;
type ConnectionListener = (error: Error | null, socket: Duplex) => void;

/**
 * request-filtering-agent does the real work (every resolved address of every connection, and
 * literal-IP hosts, are checked before connecting). This layer adds what its ranges miss:
 * IPv4-compatible IPv6 (`::7f00:1`), which ipaddr.js ranks as unicast.
 */
function extraRefusal(address: string, policy: AddressPolicy): Error | undefined {
  if (policy.allowPrivateNetworks || addressInList(address, policy.allowList ?? [])) return undefined;
  if (isIPv4CompatibleAddress(address)) return new BlockedAddressError(`address ${address} is not allowed (IPv4-compatible IPv6)`);
  return undefined;
}

function guardedLookup(inner: LookupFunction, policy: AddressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    if (options.all) {
      inner(hostname, options, ((err: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => {
        const refusal = err ? undefined : addresses.map((a) => extraRefusal(a.address, policy)).find(Boolean);
        (callback as LookupAll)(err ?? refusal ?? null, refusal ? [] : addresses);
      }) as LookupAll);
    } else {
      inner(hostname, options, ((err: NodeJS.ErrnoException | null, address: string, family: number) => {
        const refusal = err ? undefined : extraRefusal(address, policy);
        (callback as LookupOne)(err ?? refusal ?? null, address, family);
      }) as LookupOne);
    }
  };
}

/** Runs the extra check on a literal-IP host and wraps the lookup, then defers to the agent. */
function prepareConnection(options: net.TcpNetConnectOpts, policy: AddressPolicy, connectionListener?: ConnectionListener): net.TcpNetConnectOpts | net.Socket {
  const refusal = options.host && net.isIP(options.host) ? extraRefusal(options.host, policy) : undefined;
  if (refusal) {
    const socket = new net.Socket();
    if (connectionListener) connectionListener(refusal, socket);
    else socket.destroy(refusal);
    return socket;
  }
  const inner = (options.lookup ?? dns.lookup) as unknown as LookupFunction;
  return { ...options, lookup: guardedLookup(inner, policy) as unknown as net.LookupFunction };
}

class GuardedHttpAgent extends RequestFilteringHttpAgent {
  constructor(
    private readonly policy: AddressPolicy,
    options: RequestFilteringAgentOptions,
  ) {
    super({ ...options, keepAlive: false });
  }

  override createConnection(options: net.TcpNetConnectOpts, connectionListener?: ConnectionListener) {
    const prepared = prepareConnection(options, this.policy, connectionListener);
    return prepared instanceof net.Socket ? prepared : super.createConnection(prepared, connectionListener);
  }
}

class GuardedHttpsAgent extends RequestFilteringHttpsAgent {
  constructor(
    private readonly policy: AddressPolicy,
    options: RequestFilteringAgentOptions,
  ) {
    super({ ...options, keepAlive: false });
  }

  override createConnection(options: net.TcpNetConnectOpts, connectionListener?: ConnectionListener) {
    const prepared = prepareConnection(options, this.policy, connectionListener);
    return prepared instanceof net.Socket ? prepared : super.createConnection(prepared, connectionListener);
  }
}

/**
 * Connection-time guard, given to got as `agent: {http, https}` so that it applies to every
 * redirect hop and to the addresses actually connected to (which defeats DNS rebinding between
 * the submit-time check and the fetch). Fresh agents per request: no pooled sockets to reuse.
 */
export function guardedAgents(policy: AddressPolicy): { http: RequestFilteringHttpAgent; https: RequestFilteringHttpsAgent } {
  const options: RequestFilteringAgentOptions = {
    allowPrivateIPAddress: policy.allowPrivateNetworks,
    allowMetaIPAddress: policy.allowPrivateNetworks,
    allowIPAddressList: canonicalList(policy.allowList, 'allowList'),
    denyIPAddressList: canonicalList(policy.denyList, 'denyList'),
  };
  return { http: new GuardedHttpAgent(policy, options), https: new GuardedHttpsAgent(policy, options) };
}

