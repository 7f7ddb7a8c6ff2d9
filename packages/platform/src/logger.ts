import winston from 'winston';

export type Logger = winston.Logger;

/**
 * Keys whose values never reach a log line, at any depth (API keys, LLM keys, bearer tokens, webhook
 * secrets): these names exactly, and any name ending in token, secret, password or api key
 * (`platformToken`, `webhook_secret`). Counts such as `llm_tokens` end in "tokens" and stay.
 */
const SECRET_KEYS = /^(authorization|x-api-key|key|llm[_-]?key|bearer)$|(token|secret|password|api[_-]?key)$/i;

function redact(value: unknown, depth = 0): unknown {
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = SECRET_KEYS.test(k) ? '[redacted]' : redact(v, depth + 1);
  return out;
}

const redactFormat = winston.format((info) => {
  for (const key of Object.keys(info)) {
    if (SECRET_KEYS.test(key)) info[key] = '[redacted]';
    else if (key !== 'level' && key !== 'message') info[key] = redact(info[key]);
  }
  return info;
});

/** JSON lines on stdout; child loggers carry `requestId` / `jobId` fields. */
export function createLogger(service: string, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  // winston runs every format (redaction, timestamp, JSON) before its transports drop a line below
  // the level; dropping it first keeps a debug line off the CPU profile of a request.
  const enabledOnly = winston.format((info) => (logger.isLevelEnabled(info.level) ? info : false));
  const logger: Logger = winston.createLogger({
    level,
    defaultMeta: { service },
    format: winston.format.combine(enabledOnly(), redactFormat(), winston.format.timestamp(), winston.format.errors({ stack: true }), winston.format.json()),
    transports: [new winston.transports.Console()],
  });
  return logger;
}

/**
 * Lifecycle lines ("listening on …", "… ready") are printed whatever LOG_LEVEL says: operators
 * and outside checks wait for them (INTERFACE.md). Same JSON shape as every other log line.
 */
export function announce(service: string, message: string): void {
  process.stdout.write(`${JSON.stringify({ level: 'info', message, service, timestamp: new Date().toISOString() })}\n`);
}
