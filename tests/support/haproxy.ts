import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startProcess, type ServiceProcess } from './processes.js';
import { freePort } from './redis-server.js';

/**
 * haproxy (Debian's) in front of gateways, as an operator would put it: round robin per request
 * (no stickiness: any request may go to any gateway), a gateway taken out when its /readyz fails
 * twice, and a request whose connection a dead gateway refused tried once more on another.
 */
export interface Balancer {
  url: string;
  process: ServiceProcess;
  stop(): Promise<void>;
}

export function haproxyConfig(listen: string, gateways: string[], options: { checkIntervalMs?: number } = {}): string {
  const inter = options.checkIntervalMs ?? 500;
  return [
    'global',
    '  maxconn 512',
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 120s',
    '  timeout server 120s',
    '  retries 2',
    '  option redispatch',
    '  retry-on conn-failure empty-response response-timeout',
    'frontend api',
    `  bind ${listen}`,
    '  default_backend gateways',
    'backend gateways',
    '  balance roundrobin',
    '  option httpchk GET /readyz',
    ...gateways.map((g, i) => `  server gateway${i + 1} ${g} check inter ${inter} fall 2 rise 1`),
    '',
  ].join('\n');
}

async function answersHttp(url: string): Promise<boolean> {
  return fetch(url, { signal: AbortSignal.timeout(2_000) }).then((r) => r.status < 500, () => false);
}

export async function startHaproxy(gateways: string[]): Promise<Balancer> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gleaner-haproxy-'));
  const port = await freePort();
  const config = path.join(dir, 'haproxy.cfg');
  writeFileSync(config, haproxyConfig(`127.0.0.1:${port}`, gateways));
  // -db: in the foreground, logs to stderr; -W would fork a master process.
  const proc = startProcess('haproxy', ['-f', config, '-db'], {});
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; !(await answersHttp(`${url}/healthz`)); i++) {
    if (i > 100 || proc.child.exitCode !== null) throw new Error(`haproxy did not start:\n${proc.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    process: proc,
    stop: async () => {
      await proc.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
