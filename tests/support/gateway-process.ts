import { RUN_PROGRAM, startProcess, type ServiceProcess } from './processes.js';
import { freePort } from './redis-server.js';

export interface GatewayProcess {
  url: string;
  port: number;
  process: ServiceProcess;
  /** True while the process has neither exited nor been killed by a signal. */
  alive(): boolean;
}

/**
 * The gateway as a real process (`node packages/platform/src/run.mjs services/gateway/src/main.ts`) on a free
 * port, resolved once it logs `listening on`. `preloads` are extra `--import` modules (the
 * simulated internet of the SSRF tests).
 */
export async function startGatewayProcess(env: Record<string, string>, preloads: string[] = []): Promise<GatewayProcess> {
  const port = await freePort();
  const proc = startProcess(process.execPath, [...preloads.flatMap((p) => ['--import', p]), RUN_PROGRAM, 'services/gateway/src/main.ts'], { ...env, PORT: String(port) });
  await proc.waitFor(/listening on http:\/\/127\.0\.0\.1:\d+/);
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    process: proc,
    alive: () => proc.child.exitCode === null && proc.child.signalCode === null,
  };
}
