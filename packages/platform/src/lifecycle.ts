import { createLogger, type Logger } from './logger.js';

export interface ShutdownStep {
  name: string;
  run: () => Promise<unknown> | unknown;
}

/**
 * Runs shutdown steps in order (unready, stop HTTP, close workers, close Redis), each bounded by
 * what is left of one overall deadline, so a stuck step cannot keep the process alive.
 */
export async function shutdownInOrder(steps: ShutdownStep[], deadlineMs: number, logger: Logger): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  for (const step of steps) {
    const left = deadline - Date.now();
    if (left <= 0) {
      logger.warn('shutdown deadline reached', { skipped: step.name });
      continue;
    }
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        Promise.resolve().then(step.run),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`timed out after ${left} ms`)), left);
        }),
      ]);
    } catch (err) {
      logger.warn('shutdown step failed', { step: step.name, error: (err as Error).message });
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Installs SIGTERM/SIGINT handlers that run `stop` once, then exit. */
export function exitOnSignals(stop: () => Promise<void>, logger: Logger): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down', { signal });
    stop().then(
      () => process.exit(0),
      (err) => {
        logger.error('shutdown failed', { error: err });
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
}

/** Something the operator must set up before a service can start (a missing program, say): no stack trace. */
export class SetupError extends Error {
  override name = 'SetupError';
}

/**
 * Ends a service that could not start, loudly and in one line: a JSON line on stderr like the
 * logs, naming what is wrong (an invalid configuration names every bad variable), then exit code
 * 1. Not Node's multi-line report of an uncaught error; other failures keep their stack in a field.
 */
export function exitOnBootFailure(service: string, err: unknown): never {
  const error = err instanceof Error ? err : new Error(String(err));
  const line = {
    level: 'error',
    message: `${service} failed to start: ${error.message.split('\n')[0]}`,
    service,
    timestamp: new Date().toISOString(),
    ...(error.name === 'ConfigError' || error.name === 'SetupError' ? {} : { stack: error.stack }),
  };
  process.stderr.write(`${JSON.stringify(line)}\n`);
  process.exit(1);
}

/**
 * A worker service's `main.ts`: load its configuration, start it, stop it in order on SIGTERM or
 * SIGINT. A bad configuration (or anything else that stops the boot) ends the process with one line.
 */
export async function runServiceProcess<C extends { LOG_LEVEL: string }>(
  name: string,
  loadConfig: () => C,
  start: (config: C, logger: Logger) => Promise<{ stop(): Promise<void> }>,
): Promise<void> {
  try {
    const config = loadConfig();
    const logger = createLogger(name, config.LOG_LEVEL);
    const service = await start(config, logger);
    exitOnSignals(service.stop, logger);
  } catch (err) {
    exitOnBootFailure(name, err);
  }
}
