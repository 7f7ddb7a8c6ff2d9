import net from 'node:net';

export interface RawRequest {
  method: string;
  /** Sent exactly as given: no normalisation, no percent-encoding (`/documents/status/../../x`). */
  path: string;
  /** Name/value pairs in order; duplicates allowed; values may hold bytes a normal client refuses. */
  headers?: Array<[string, string | Buffer]>;
  body?: string | Buffer;
  /** Add `Content-Length` for the body (default true; false lets a case lie or omit it). */
  contentLength?: boolean;
  /** Send the Host header (default true). */
  host?: boolean;
}

export interface RawResponse {
  status: number;
  /** Lowercased names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: string;
  /** JSON body, or undefined when it is not JSON. */
  json: unknown;
}

function dechunk(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', at);
    if (lineEnd < 0) break;
    const size = parseInt(data.subarray(at, lineEnd).toString('latin1'), 16);
    if (!Number.isFinite(size) || size === 0) break;
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

function parseResponse(raw: Buffer): RawResponse {
  // Interim answers (100 Continue) come before the real one.
  while (/^HTTP\/1\.[01] 1\d\d /.test(raw.subarray(0, 16).toString('latin1'))) raw = raw.subarray(raw.indexOf('\r\n\r\n') + 4);
  const headEnd = raw.indexOf('\r\n\r\n');
  if (headEnd < 0) throw new Error(`no complete HTTP response head in ${JSON.stringify(raw.subarray(0, 200).toString('latin1'))}`);
  const [statusLine, ...lines] = raw.subarray(0, headEnd).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  let body = raw.subarray(headEnd + 4);
  if (/chunked/i.test(headers['transfer-encoding'] ?? '')) body = dechunk(body);
  else if (headers['content-length'] !== undefined) body = body.subarray(0, Number(headers['content-length']));
  const text = body.toString('utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status, headers, body: text, json };
}

/**
 * One HTTP/1.1 exchange over a fresh TCP connection, written byte for byte: for requests that
 * fetch and supertest refuse to send (bare CR/LF or raw bytes in headers, duplicated headers,
 * undecodable paths, made-up methods). The response is read until the server closes.
 */
export function rawHttp(port: number, request: RawRequest, timeoutMs = 15_000): Promise<RawResponse> {
  const body = request.body === undefined ? undefined : Buffer.isBuffer(request.body) ? request.body : Buffer.from(request.body, 'utf8');
  const host = request.host === false ? '' : `Host: 127.0.0.1:${port}\r\n`;
  const head: Buffer[] = [Buffer.from(`${request.method} ${request.path} HTTP/1.1\r\n${host}Connection: close\r\n`, 'latin1')];
  for (const [name, value] of request.headers ?? []) head.push(Buffer.from(`${name}: `, 'latin1'), Buffer.isBuffer(value) ? value : Buffer.from(value, 'latin1'), Buffer.from('\r\n'));
  if (body && request.contentLength !== false) head.push(Buffer.from(`Content-Length: ${body.length}\r\n`));
  head.push(Buffer.from('\r\n'));
  const bytes = Buffer.concat(body ? [...head, body] : head);
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer within ${timeoutMs} ms to ${request.method} ${request.path.slice(0, 100)}`));
    }, timeoutMs);
    socket.on('data', (c: Buffer) => chunks.push(c));
    // The server may answer (413, 400) and close before it has read the whole body: EPIPE and
    // ECONNRESET on our side are expected then; what was received is the answer.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      try {
        resolve(parseResponse(Buffer.concat(chunks)));
      } catch (err) {
        reject(err);
      }
    });
    socket.write(bytes);
  });
}
