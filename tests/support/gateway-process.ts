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

/**
 * Until the gateway's /readyz answers 200: it listens before its Redis connection is up (and
 * answers 503 meanwhile), which takes longer on a Cluster (the slots are read first).
 */
export async function untilReady(gateway: GatewayProcess, timeoutMs = 20_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) {
    if (await fetch(`${gateway.url}/readyz`).then((r) => r.ok, () => false)) return;
  }
  throw new Error(`gateway at ${gateway.url} not ready after ${timeoutMs} ms`);
}
