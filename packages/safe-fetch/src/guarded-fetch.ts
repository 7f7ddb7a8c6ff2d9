import http from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import { guardedAgents, type AddressPolicy } from './address-policy.js';
import { FetchError } from './fetch-error.js';
import { toFetchError } from './got-errors.js';
import { parseHttpUrl } from './public-url.js';

/** Statuses whose answers have no body (the Response constructor refuses one). */
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/**
 * A `fetch` for clients that take one (provider SDKs) whose connections go through the same
 * connection-time guard as every other outbound request: each address a host resolves to when
 * connecting is checked against `policy`, so a name that turns private after it was registered is
 * refused. A refused connection rejects with a FetchError of kind `blocked_address` (see
 * `isBlockedAddressError`). Redirects are returned, never followed: an API answers itself, and a
 * redirect would carry the credentials in the headers to another host. Bodies are sent as bytes
 * and no `accept-encoding` is offered, because nothing here decompresses.
 */
export function createGuardedFetch(policy: AddressPolicy): typeof globalThis.fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const url = parseHttpUrl(request.url);
    const headers = Object.fromEntries(request.headers);
    delete headers['accept-encoding'];
    const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    const agents = guardedAgents(policy);
    const signal = init?.signal ?? undefined;
    if (signal?.aborted) throw signal.reason ?? new DOMException('This operation was aborted', 'AbortError');

    const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const send = url.protocol === 'https:' ? https.request : http.request;
      const req = send(url, { method: request.method, headers, agent: url.protocol === 'https:' ? agents.https : agents.http, signal });
      req.once('response', resolve);
      req.once('error', (err) => reject(signal?.aborted ? (signal.reason ?? err) : toFetchError(err)));
      req.end(body);
    });
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(response.headers)) {
      for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) responseHeaders.append(name, v);
    }
    const stream = NULL_BODY_STATUSES.has(response.statusCode ?? 0) || request.method === 'HEAD' ? null : (Readable.toWeb(response) as ReadableStream<Uint8Array>);
    if (!stream) response.resume();
    return new Response(stream, { status: response.statusCode, statusText: response.statusMessage, headers: responseHeaders });
  };
}

/** True when `err`, or an error in its `cause` chain, is the guard refusing an address. */
export function isBlockedAddressError(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof FetchError && e.kind === 'blocked_address') return true;
  }
  return false;
}
