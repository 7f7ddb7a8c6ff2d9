import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { GleanerApiError, GleanerJobFailedError, GleanerProtocolError } from '@gleaner/client';

/**
 * A failure as a tool error (`isError: true`): the model reads Gleaner's own message ("E003:
 * Invalid URL format", "400-001: Invalid file type" and its details) and can correct its call;
 * the session goes on. Nothing here throws.
 */
export function toolError(err: unknown, baseUrl: string): CallToolResult {
  return { content: [{ type: 'text', text: describeError(err, baseUrl) }], isError: true };
}

/** A call Gleaner answered that the tool cannot answer as asked (pages naming no page): its message is the tool error. */
export class AnswerError extends Error {}

export function describeError(err: unknown, baseUrl: string): string {
  if (err instanceof AnswerError) return err.message;
  if (err instanceof GleanerApiError) {
    const details = 'details' in err.body && Array.isArray(err.body.details) && err.body.details.length ? ` (${err.body.details.join('; ')})` : '';
    return `Gleaner answered HTTP ${err.status}: ${err.body.error}${details}${HINTS[err.status]?.(err) ?? ''}`;
  }
  if (err instanceof GleanerJobFailedError) {
    return `Gleaner could not finish request ${err.requestId}: ${err.error}${err.details.length ? ` (${err.details.join('; ')})` : ''}`;
  }
  if (err instanceof GleanerProtocolError) return `Gleaner's answer was not understood (HTTP ${err.status}): ${err.message}`;
  if (isAbort(err)) return 'The call was cancelled.';
  // fetch's TypeError("fetch failed") carries the reason (ECONNREFUSED, ENOTFOUND) as its cause.
  if (err instanceof TypeError && err.cause instanceof Error) return `Could not reach Gleaner at ${baseUrl}: ${err.cause.message}`;
  return `Gleaner MCP server error: ${err instanceof Error ? err.message : String(err)}`;
}

const HINTS: Record<number, (err: GleanerApiError) => string> = {
  401: () => '. The API key was not accepted.',
  // A gateway before issue 36 names no scope in its 403.
  403: (err) => ('details' in err.body && err.body.details?.length ? '' : '. The API key lacks the scope this tool needs (scrape or parse).'),
  429: (err) => `. Wait${err.retryAfterSeconds !== null ? ` ${err.retryAfterSeconds} s` : ''} before calling again.`,
};

export function isAbort(err: unknown): boolean {
  return err instanceof Error && err.name === 'AbortError';
}
