import dgram from 'node:dgram';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { serviceEnv } from './support/env.js';
import { startGatewayProcess, type GatewayProcess } from './support/gateway-process.js';
import { startPageServer } from './support/page-server.js';
import type { ServiceProcess } from './support/processes.js';
import { freePort } from './support/redis-server.js';
import { deleteKeysWithPrefix, testPrefix } from './support/redis.js';
import { SIMULATED_INTERNET_PRELOAD, simulatedInternetEnv, startServiceOnSimulatedInternet, type SimulatedInternet } from './support/simulated-internet.js';
import { createAccountWithKey, openTestStores, type CreatedAccount, type TestStores } from './support/test-stores.js';
import { waitFor } from './support/webhook-receiver.js';

/**
 * SSRF through the browser, private networks NOT allowed. A public page (a simulated public
 * address routed to a local server, tests/support/simulated-internet-preload.mjs) whose redirect,
 * image, script, fetch, iframe and websocket point at 127.0.0.1, [::1], a name resolving to
 * loopback, 169.254.169.254 and 10.0.0.1. Listeners wait on loopback, and the two private
 * addresses are routed to them too, so any connection that got through would be counted: none
 * may. The page itself still renders. Images are loaded here (BROWSER_BLOCKED_RESOURCES empty),
 * so that they go through the proxy like everything else.
 */
const prefix = testPrefix('browser-ssrf');
const PUBLIC_IP = '93.184.215.14';
const env = serviceEnv(prefix, { GLEANER_ALLOW_PRIVATE_NETWORKS: 'false', DEFAULT_RATE_LIMIT_PER_MINUTE: '10000', BROWSER_BLOCKED_RESOURCES: '' });

let canaryPort: number;
const canaryHits: string[] = [];
const canaries: http.Server[] = [];
let udpCanary: dgram.Socket;
const datagrams: string[] = [];
let site: Awaited<ReturnType<typeof startPageServer>>;
let gateway: GatewayProcess;
let workers: ServiceProcess[] = [];
let metricsPort: number;
let test: TestStores;
let account: CreatedAccount;

/** Every address a page must not reach, as a URL host. */
const inward = () => ({ 'IPv4 loopback': '127.0.0.1', 'IPv6 loopback': '[::1]', 'a name resolving to loopback': 'loopback.gleaner-test', metadata: '169.254.169.254', 'RFC 1918': '10.0.0.1' });

function hostilePage(sitePort: number, udpPort: number): string {
  const targets = Object.values(inward()).map((host) => `${host}:${canaryPort}`);
  const items = targets
    .map(
      (t, i) => `
<img src="http://${t}/image-${i}.png" alt="">
<script src="http://${t}/script-${i}.js"></script>
<iframe src="http://${t}/frame-${i}"></iframe>
<script>
fetch('http://${t}/fetch-${i}').catch(() => {});
fetch('https://${t}/fetch-tls-${i}').catch(() => {});
fetch('/redirect?to=' + encodeURIComponent('http://${t}/redirected-${i}')).catch(() => {});
try { new WebSocket('ws://${t}/ws-${i}'); } catch {}
try { new WebSocket('wss://${t}/wss-${i}'); } catch {}
</script>`,
    )
    .join('\n');
  return `<!doctype html><html><head><title>Hostile public page</title></head><body>
<article><h1>A public page with inward links</h1><p id="main">This public article renders in full even though every resource it asks for points inward.</p><p id="webrtc"></p></article>
${items}
<script>
const rtc = document.getElementById('webrtc');
// Written as a sentence: the extractor cuts a short label left at the end of an article.
try {
  const pc = new RTCPeerConnection({ iceServers: [{ urls: 'stun:127.0.0.1:${udpPort}' }] });
  pc.createDataChannel('x'); pc.createOffer().then((o) => pc.setLocalDescription(o));
  rtc.textContent = 'In this browser, WebRTC is available.';
} catch { rtc.textContent = 'In this browser, WebRTC is unavailable.'; }
</script>
<p>Site port ${sitePort}.</p>
</body></html>`;
}

beforeAll(async () => {
  canaryPort = await freePort();
  for (const host of ['127.0.0.1', '::1']) {
    const server = http.createServer((req, res) => {
      canaryHits.push(`${host} ${req.method} ${req.url}`);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('internal');
    });
    server.on('connection', (s: Socket) => canaryHits.push(`${host} connection from ${s.remoteAddress}`));
    server.on('upgrade', (req, s: Socket) => {
      canaryHits.push(`${host} upgrade ${req.url}`);
      s.destroy();
    });
    await new Promise<void>((resolve) => server.listen(canaryPort, host, resolve));
    canaries.push(server);
  }
  udpCanary = dgram.createSocket('udp4');
  udpCanary.on('message', (m, from) => datagrams.push(`${from.address}:${from.port} ${m.length} bytes`));
  await new Promise<void>((resolve) => udpCanary.bind(0, '127.0.0.1', resolve));
  const udpPort = (udpCanary.address() as AddressInfo).port;

  let sitePort = 0;
  site = await startPageServer({
    '/hostile': (_q, s) => s.writeHead(200, { 'content-type': 'text/html' }).end(hostilePage(sitePort, udpPort)),
    '/redirect': (q, s) => s.writeHead(302, { location: new URL(q.url!, 'http://x').searchParams.get('to')! }).end(),
    '/to-loopback': (_q, s) => s.writeHead(302, { location: `http://127.0.0.1:${canaryPort}/landing` }).end(),
  });
  sitePort = Number(new URL(site.url).port);

  const publicView: SimulatedInternet = { hosts: { 'public.gleaner-test': [PUBLIC_IP] } };
  // Workers: the public name reaches the local site; the loopback name is what it says; the
  // metadata and RFC 1918 addresses are routed to the listeners, should anything connect.
  const workerView: SimulatedInternet = {
    hosts: { 'public.gleaner-test': [PUBLIC_IP], 'loopback.gleaner-test': ['127.0.0.1'] },
    nat: { [PUBLIC_IP]: '127.0.0.1', '169.254.169.254': '127.0.0.1', '10.0.0.1': '127.0.0.1' },
  };
  metricsPort = await freePort();
  workers = [startServiceOnSimulatedInternet('scraper-worker', env, workerView), startServiceOnSimulatedInternet('browser-worker', { ...env, HEALTH_PORT: String(metricsPort) }, workerView)];
  gateway = await startGatewayProcess({ ...env, ...simulatedInternetEnv(publicView) }, [SIMULATED_INTERNET_PRELOAD]);
  await Promise.all(workers.map((w) => w.waitFor(/ready/)));
  test = openTestStores(prefix, env.GLEANER_SECRET);
  account = await createAccountWithKey(test.stores, 'ssrf-browser');
}, 90_000);

afterAll(async () => {
  await Promise.all([gateway?.process.kill(), ...workers.map((w) => w.kill())]);
  await site?.close();
  for (const c of canaries) await new Promise((r) => c.close(r));
  udpCanary?.close();
  await test?.close();
  await deleteKeysWithPrefix(prefix);
});

async function submit(body: Record<string, unknown>): Promise<{ status: number; body: Record<string, any> }> {
  const res = await fetch(`${gateway.url}/web-scrapper/`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': account.apiKey }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

it('the page renders; none of its inward redirects, images, scripts, fetches, iframes or websockets reaches a listener; WebRTC is gone', async () => {
  const sitePort = new URL(site.url).port;
  const answer = await submit({ url: `http://public.gleaner-test:${sitePort}/hostile`, render_js: true });
  expect(answer.status).toBe(200);
  expect(answer.body.meta.rendered).toBe(true);
  expect(answer.body.text_content).toContain('This public article renders in full');
  expect(answer.body.text_content).toContain('WebRTC is unavailable');
  // Late connections (the page is closed by now, but give stragglers a moment).
  await new Promise((r) => setTimeout(r, 1_000));
  expect(canaryHits).toEqual([]);
  expect(datagrams).toEqual([]);
  // The proxy refused them (its counter on the worker's /metrics): at least the 5 addresses × 8 kinds.
  const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const refused = Number(/^gleaner_browser_refused_connections_total (\d+)/m.exec(metrics)?.[1]);
  expect(refused).toBeGreaterThanOrEqual(Object.keys(inward()).length * 6);
}, 60_000);

it('a public page that redirects inward is refused with E003, by the proxy when the browser follows it', async () => {
  const sitePort = new URL(site.url).port;
  const answer = await submit({ url: `http://public.gleaner-test:${sitePort}/to-loopback`, render_js: true });
  expect([answer.status, answer.body.error]).toEqual([400, 'E003: url resolves to a private or reserved address']);
  expect(canaryHits).toEqual([]);
}, 30_000);

it('the worker lives on and a later page still renders', async () => {
  const sitePort = new URL(site.url).port;
  await waitFor(() => workers.every((w) => w.child.exitCode === null), Boolean, 1_000);
  const answer = await submit({ url: `http://public.gleaner-test:${sitePort}/hostile`, render_js: true });
  expect(answer.body.meta?.rendered).toBe(true);
}, 30_000);
