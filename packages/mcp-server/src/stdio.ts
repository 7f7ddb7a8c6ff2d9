import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod/v4';
import { createGleanerMcpServer, type GleanerMcpOptions } from './gleaner-mcp-server.js';

const intFrom = (min: number, max: number) => z.coerce.number().int().min(min).max(max).optional();

const API_KEY_REQUIRED = 'is required: a Gleaner API key (pnpm gleaner keys create, or your Gleaner provider), set in the env of this server in the MCP client\'s configuration';

/** The stdio server's environment (what an MCP client's configuration sets). */
const stdioEnv = z.object({
  GLEANER_URL: z.string().regex(/^https?:\/\/[^\s/]+/i, 'must be the http(s) base URL of a Gleaner gateway').default('http://127.0.0.1:8080'),
  GLEANER_API_KEY: z.string({ error: API_KEY_REQUIRED }).trim().min(1, API_KEY_REQUIRED),
  GLEANER_MCP_POLL_MS: intFrom(100, 60_000),
  GLEANER_MCP_WAIT_MS: intFrom(1_000, 60 * 60_000),
  GLEANER_MCP_CONCURRENCY: intFrom(1, 16),
});

/** Every variable the stdio server reads (docs/mcp.md and the package README list them). */
export const STDIO_VARIABLES = Object.keys(stdioEnv.shape);

/** The server's options from the environment; throws one line naming each bad variable. */
export function stdioOptions(env: NodeJS.ProcessEnv): GleanerMcpOptions {
  const parsed = stdioEnv.safeParse(env);
  if (!parsed.success) throw new Error(parsed.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; '));
  const c = parsed.data;
  return { baseUrl: c.GLEANER_URL, apiKey: c.GLEANER_API_KEY, pollMs: c.GLEANER_MCP_POLL_MS, waitMs: c.GLEANER_MCP_WAIT_MS, concurrency: c.GLEANER_MCP_CONCURRENCY };
}

/**
 * `gleaner-mcp`: the tools over stdio, for MCP clients that start their servers as processes
 * (Claude Desktop, Claude Code, Cursor). Standard output carries the protocol only; anything for
 * a person goes to standard error. Ends when the client closes standard input.
 */
export async function runStdioServer(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  let options: GleanerMcpOptions;
  try {
    options = stdioOptions(env);
  } catch (err) {
    return refuseEveryRequest(`gleaner-mcp is not configured: ${(err as Error).message}`);
  }
  const server = createGleanerMcpServer(options);
  await server.connect(new StdioServerTransport());
  process.stdin.once('end', () => void server.close().finally(() => process.exit(0)));
  process.stderr.write(`gleaner-mcp: serving the Gleaner API at ${options.baseUrl} over stdio\n`);
}

/**
 * A configuration that cannot work (no API key): every request, initialize first, is answered
 * with a JSON-RPC error giving the reason, which MCP clients show where their user looks (a
 * reason only on standard error is in a log file few open); the process ends with code 2 when
 * the client closes standard input.
 */
async function refuseEveryRequest(reason: string): Promise<void> {
  process.stderr.write(`${reason}\n`);
  const transport = new StdioServerTransport();
  transport.onmessage = (message) => {
    if ('id' in message && 'method' in message) void transport.send({ jsonrpc: '2.0', id: message.id, error: { code: ErrorCode.InternalError, message: reason } });
  };
  await transport.start();
  process.stdin.once('end', () => process.exit(2));
}
