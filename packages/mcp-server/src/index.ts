export { createGleanerMcpServer, SERVER_NAME, SERVER_VERSION, type GleanerMcpOptions } from './gleaner-mcp-server.js';
export { McpHttpSessions, type McpHttpSessionsOptions, type SessionDirectory, type SessionOwner, type SharedSession } from './http-sessions.js';
export { runStdioServer, stdioOptions } from './stdio.js';
export { scrapeApiOptions } from './tool-inputs.js';
