import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod/v4';
import { createGleanerMcpServer, type GleanerMcpOptions } from './gleaner-mcp-server.js';

const intFrom = (min: number, max: number) => z.coerce.number().int().min(min).max(max).optional();

/** The stdio server's environment (what an MCP client's configuration sets). */
const stdioEnv = z.object({
  GLEANER_URL: z.string().regex(/^https?:\/\/[^\s/]+/i, 'must be the http(s) base URL of a Gleaner gateway').default('http://127.0.0.1:8080'),
  GLEANER_API_KEY: z.string().trim().min(1, 'is required: a Gleaner API key (pnpm gleaner keys create, or your Gleaner provider)'),
  GLEANER_MCP_POLL_MS: intFrom(100, 60_000),
  GLEANER_MCP_WAIT_MS: intFrom(1_000, 60 * 60_000),
  GLEANER_MCP_CONCURRENCY: intFrom(1, 16),
});

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
    process.stderr.write(`gleaner-mcp: ${(err as Error).message}\n`);
    process.exit(2);
  }
  const server = createGleanerMcpServer(options);
  await server.connect(new StdioServerTransport());
  process.stdin.once('end', () => void server.close().finally(() => process.exit(0)));
  process.stderr.write(`gleaner-mcp: serving the Gleaner API at ${options.baseUrl} over stdio\n`);
}
