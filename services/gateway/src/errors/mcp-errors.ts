import { type ErrorTable } from './api-error.js';
import { scraperErrors } from './scraper-errors.js';

/** JSON-RPC's code for a body that is not JSON; -32000 is the implementation-defined server error. */
const PARSE_ERROR = -32700;
const SERVER_ERROR = -32000;

/**
 * `/mcp` refusals (auth, rate limit, body) as JSON-RPC error responses, the shape MCP clients
 * read, with the scraper's statuses and "CODE: message" texts (E004, E429 …) as the message.
 */
export const mcpErrors: ErrorTable = {
  render(error, requestId) {
    const { status, body, headers } = scraperErrors.render(error, requestId);
    const code = error.code === 'invalid_json' ? PARSE_ERROR : SERVER_ERROR;
    return { status, headers, body: { jsonrpc: '2.0', error: { code, message: body.error }, id: null } };
  },
};
