import { type ErrorTable } from './api-error.js';
import { scraperErrors } from './scraper-errors.js';

/** JSON-RPC's code for a body that is not JSON; -32000 is the implementation-defined server error. */
const PARSE_ERROR = -32700;
const SERVER_ERROR = -32000;
/** JSON-RPC's code for JSON that is no request (an empty batch `[]`). */
const INVALID_REQUEST = -32600;

/** The error of a JSON body that is no JSON-RPC request: `/mcp` only (JSON-RPC's -32600, HTTP 400). */
export const JSONRPC_INVALID_REQUEST = 'jsonrpc_invalid_request';

/**
 * `/mcp` refusals (auth, rate limit, body) as JSON-RPC error responses, the shape MCP clients
 * read, with the scraper's statuses and "CODE: message" texts (E004, E429 …) as the message.
 */
export const mcpErrors: ErrorTable = {
  render(error, requestId) {
    if (error.code === JSONRPC_INVALID_REQUEST) {
      return { status: 400, body: { jsonrpc: '2.0', error: { code: INVALID_REQUEST, message: `E001: Invalid Request: ${error.message}` }, id: null } };
    }
    const { status, body, headers } = scraperErrors.render(error, requestId);
    const code = error.code === 'invalid_json' ? PARSE_ERROR : SERVER_ERROR;
    return { status, headers, body: { jsonrpc: '2.0', error: { code, message: body.error }, id: null } };
  },
};
