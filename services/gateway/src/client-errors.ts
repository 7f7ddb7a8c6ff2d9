import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { newRequestId } from '@gleaner/platform';
import { ApiError, errorTables, type ApiFamily } from './errors/index.js';
import { noteAnsweredOnSocket } from './middleware/access-log.js';

/** The family whose error format a path answers in (the app mounts them at these bases, case-insensitively). */
function familyOfPath(path: string): ApiFamily {
  if (/^\/v1\/llm-web-scrapper(?:[/?]|$)/i.test(path)) return 'v1';
  if (/^\/documents(?:[/?]|$)/i.test(path)) return 'parser';
  if (/^\/bot-webhook(?:[/?]|$)/i.test(path)) return 'bot';
  if (/^\/account(?:[/?]|$)/i.test(path)) return 'account';
  if (/^\/mcp(?:[/?]|$)/i.test(path)) return 'mcp';
  return 'scraper';
}

const MESSAGES: Record<string, string> = {
  HPE_HEADER_OVERFLOW: 'Request headers are too large',
  // The client closed its side of the connection before the body it announced was whole.
  HPE_INVALID_EOF_STATE: 'Request body was cut off before its end',
};

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 404: 'Not Found', 408: 'Request Timeout' };

/** Writes a whole HTTP answer on a socket express never got, in the family's format, and closes it. */
function answerOnSocket(socket: Duplex, path: string, error: ApiError, status: number): void {
  const requestId = newRequestId();
  const rendered = errorTables[familyOfPath(path)].render(error, requestId);
  const body = JSON.stringify(rendered.body);
  const head = [`HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}`, 'Content-Type: application/json; charset=utf-8', `Content-Length: ${Buffer.byteLength(body)}`, `X-Request-ID: ${requestId}`, 'Connection: close'];
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
}

/**
 * Node answers some requests itself, before express sees them, with a bare status and no body:
 * requests its parser refuses (control bytes in a header, oversized headers, an unknown method,
 * conflicting Content-Length and Transfer-Encoding), CONNECT, and unknown `Expect` values. Those
 * answers are given here in the family's error format with an X-Request-ID, like every other
 * answer (API-DECISIONS "Conventions").
 */
export function answerRequestsExpressNeverSees(server: http.Server, app: http.RequestListener): void {
  server.on('clientError', (err: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Duplex) => {
    // Like Node's own handler: never write into a response already under way on this socket.
    const inFlight = (socket as Duplex & { _httpMessage?: http.ServerResponse })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const requestLine = err.rawPacket?.toString('latin1').split('\r\n', 1)[0] ?? '';
    const status = err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    const message = MESSAGES[err.code ?? ''] ?? (status === 408 ? 'Request timed out' : 'Malformed HTTP request');
    // Express rewrites `url` inside a mounted router; `originalUrl` is the path as asked.
    const asked = inFlight?.req as (http.IncomingMessage & { originalUrl?: string }) | undefined;
    const path = asked?.originalUrl ?? asked?.url ?? /^\S+ (\S+)/.exec(requestLine)?.[1] ?? '';
    answerOnSocket(socket, path, new ApiError('invalid_json', message, { status }), status);
    if (inFlight) {
      // A request express is serving whose body never came whole (the request timeout, a client
      // that closed its side halfway): its access line says what was answered here, and the
      // connection goes once the answer is out, so the request ends for its route too (an upload
      // stops being written) instead of reading a slow body further.
      noteAnsweredOnSocket(inFlight, status);
      socket.once('finish', () => socket.destroy());
    }
  });
  // The API is not a proxy: CONNECT names no endpoint.
  server.on('connect', (req: http.IncomingMessage, socket: Duplex) => {
    answerOnSocket(socket, req.url ?? '', new ApiError('not_found', 'No such endpoint'), 404);
  });
  // RFC 9110 lets a server ignore an expectation it does not know; the request is served as usual.
  server.on('checkExpectation', app);
}
