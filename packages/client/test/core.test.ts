import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import {
  GleanerApiError,
  GleanerCore,
  GleanerJobFailedError,
  GleanerProtocolError,
  GleanerTimeoutError,
  type GleanerHttpRequest,
  type GleanerHttpResponse,
} from '@gleaner/client/core';

/**
 * The transport-agnostic core with an injected transport: what it asks for, how it reads answers,
 * and how it follows a 202 (the n8n nodes inject n8n's HTTP helper and sleep the same way). The
 * fetch-based client against a real gateway is client.test.ts.
 */
type Reply = Partial<GleanerHttpResponse> & { status: number };

function scripted(routes: Record<string, Reply[]>) {
  const sent: GleanerHttpRequest[] = [];
  const slept: number[] = [];
  const core = new GleanerCore({
    send: async (request) => {
      sent.push(request);
      const queue = routes[`${request.method} ${request.path}`];
      if (!queue?.length) throw new Error(`unexpected ${request.method} ${request.path}`);
      const reply = queue.length > 1 ? queue.shift()! : queue[0];
      return { headers: {}, body: undefined, ...reply };
    },
    // Real (short) waits: deadlines are measured on the clock.
    sleep: (ms) => {
      slept.push(ms);
      return new Promise((resolve) => setTimeout(resolve, Math.min(ms, 20)));
    },
  });
  return { core, sent, slept };
}

const processing = { request_id: 'r/1', url: 'https://example.com/', status: 'processing', timestamp: 1 };
const completed = { ...processing, status: 'completed', content: { text: 'done', meta: { title: '', description: '' }, links: [], images: [] } };

describe('GleanerCore', () => {
  it('builds each call as method, path and JSON body, escaping ids', async () => {
    const { core, sent } = scripted({
      'GET /web-scrapper/r%2F1': [{ status: 200, body: completed }],
      'POST /documents/parse': [{ status: 202, body: { requestId: 'd1', status: 'PROCESSING', message: 'later' } }],
      'POST /account/webhooks': [{ status: 201, body: { id: 'wh_1', url: 'https://n8n.test/h', families: ['parse'], created_at: 1 } }],
      'DELETE /account/webhooks/wh%201': [{ status: 204 }],
    });
    await core.getScrape('r/1');
    await core.parse({ url: 'https://example.com/a.pdf', type: 'pdf' });
    await core.createWebhook('https://n8n.test/h', ['parse']);
    await expect(core.deleteWebhook('wh 1')).resolves.toBe('deleted');
    expect(sent).toEqual([
      { method: 'GET', path: '/web-scrapper/r%2F1' },
      { method: 'POST', path: '/documents/parse', body: { url: 'https://example.com/a.pdf', type: 'pdf' } },
      { method: 'POST', path: '/account/webhooks', body: { url: 'https://n8n.test/h', families: ['parse'] } },
      { method: 'DELETE', path: '/account/webhooks/wh%201' },
    ]);
  });

  it('follows a 202 with the injected sleep, waiting out 429 and 503 for at least their Retry-After', async () => {
    const { core, slept } = scripted({
      'GET /web-scrapper/r%2F1': [
        { status: 200, body: processing },
        { status: 429, body: { error: 'E429: Rate limit exceeded' }, headers: { 'retry-after': '3' } },
        { status: 503, body: { error: 'E006: Service temporarily unavailable' }, headers: { 'retry-after': '2' } },
        { status: 200, body: completed },
      ],
    });
    const progress: string[] = [];
    const result = await core.followScrape('r/1', { pollMs: 100, timeoutMs: 60_000, onProgress: (p) => progress.push(p.status) });
    expect(result).toEqual(completed);
    expect(progress).toEqual(['processing']);
    expect(slept).toEqual([100, 100, 3000, 2000]);
  });

  it("stops at an error that waiting cannot fix, with the family's error body", async () => {
    const { core } = scripted({ 'GET /documents/status/d1': [{ status: 404, body: { error: '404-001: Request ID not found', details: [] }, headers: { 'x-request-id': 'q1' } }] });
    const error = await core.followParse('d1', { pollMs: 10 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GleanerApiError);
    expect(error).toMatchObject({ status: 404, code: '404-001', requestId: 'q1', retryAfterSeconds: null });
  });

  it('rejects a request that ends failed with its record, and a wait that runs out with the latest answer', async () => {
    const failed = { requestId: 'd1', status: 'FAILED', type: 'pdf', createdAt: 1, error: '400-001: Invalid file type', details: ['zip archive'] };
    const { core } = scripted({ 'GET /documents/status/d1': [{ status: 200, body: failed }], 'GET /web-scrapper/r%2F1': [{ status: 200, body: processing }] });
    await expect(core.followParse('d1', { pollMs: 10 })).rejects.toEqual(new GleanerJobFailedError('d1', '400-001: Invalid file type', ['zip archive'], failed));
    const accepted = { request_id: 'r/1', url: processing.url, status: 'processing', message: 'later' };

    const started = Date.now();
    const timedOut = (await core.followScrape('r/1', { pollMs: 10, timeoutMs: 150 }, accepted).catch((e: unknown) => e)) as GleanerTimeoutError;
    expect(timedOut).toBeInstanceOf(GleanerTimeoutError);
    expect(timedOut.latest).toEqual(processing);
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    // No poll fitted in the budget: the latest answer is the 202 itself.
    const none = (await core.followScrape('r/1', { pollMs: 10, timeoutMs: 0 }, accepted).catch((e: unknown) => e)) as GleanerTimeoutError;
    expect(none.latest).toEqual(accepted);
  });

  it('reports answers without what the API documents as protocol errors, and non-JSON error pages as API errors', async () => {
    const { core } = scripted({
      'GET /account/usage': [{ status: 200, body: '<html>proxy</html>' }],
      'POST /web-scrapper/': [{ status: 202, body: { status: 'processing', message: 'no id' } }],
      'GET /account/webhook-secret': [{ status: 200, body: {} }],
      'GET /account': [{ status: 502, body: '<html>Bad gateway</html>' }],
    });
    await expect(core.usage()).rejects.toBeInstanceOf(GleanerProtocolError);
    await expect(core.scrapeAndWait({ url: 'https://example.com/' }, { pollMs: 10 })).rejects.toThrow(/named no request ID/);
    await expect(core.webhookSecret()).rejects.toThrow(/without a webhook secret/);
    await expect(core.account()).rejects.toMatchObject({ status: 502, body: { error: '<html>Bad gateway</html>' } });
  });

  it('reads no host globals, so code that may not use them (n8n community nodes) can bundle it', () => {
    for (const file of ['core.ts', 'errors.ts', 'types.ts']) {
      const source = readFileSync(new URL(`../src/${file}`, import.meta.url), 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
      expect({ file, globals: source.match(/\b(fetch|setTimeout|setInterval|setImmediate|process|globalThis|require|Buffer)\b/g) ?? [] }).toEqual({ file, globals: [] });
      expect({ file, imports: [...source.matchAll(/from '([^']+)'/g)].map((m) => m[1]).filter((m) => !m.startsWith('./')) }).toEqual({ file, imports: [] });
    }
  });
});
