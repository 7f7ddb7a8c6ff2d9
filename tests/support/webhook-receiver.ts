import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedDelivery {
  headers: http.IncomingHttpHeaders;
  rawBody: string;
  answeredWith: number | 'hang';
  at: number;
}

/** One scripted answer: a status, 'hang' (never answer), or a status with headers (`Retry-After`). */
export type ReceiverAnswer = number | 'hang' | { status: number; headers: Record<string, string> };

/**
 * A caller's webhook endpoint: answers each delivery from a script (`[500, 500, 200]`, 'hang',
 * `{status: 429, headers: {'retry-after': '2'}}`),
 * then with the last entry forever, and records everything it received. `port` lets a test hand
 * out the URL first and start listening later (connection refused until then).
 */
export async function startWebhookReceiver(
  script: ReceiverAnswer[] = [200],
  port = 0,
): Promise<{ url: string; deliveries: ReceivedDelivery[]; inFlight(): number; peakInFlight(): number; close(): Promise<void> }> {
  const deliveries: ReceivedDelivery[] = [];
  const sockets = new Set<import('node:net').Socket>();
  // Deliveries received and not yet answered or hung up on (a 'hang' stays until the sender gives up).
  let inFlight = 0;
  let peakInFlight = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      peakInFlight = Math.max(peakInFlight, ++inFlight);
      res.once('close', () => inFlight--);
      const answer = script[Math.min(deliveries.length, script.length - 1)];
      const status = typeof answer === 'object' ? answer.status : answer;
      deliveries.push({ headers: req.headers, rawBody: Buffer.concat(chunks).toString('utf8'), answeredWith: status, at: Date.now() });
      if (status === 'hang') return;
      res.writeHead(status, { 'content-type': 'application/json', ...(typeof answer === 'object' ? answer.headers : {}) }).end('{}');
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    deliveries,
    inFlight: () => inFlight,
    peakInFlight: () => peakInFlight,
    close: () => new Promise((r) => { sockets.forEach((s) => s.destroy()); server.close(() => r()); }),
  };
}

export async function waitFor<T>(probe: () => T | Promise<T>, done: (v: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await probe();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    value = await probe();
  }
  return value;
}
