/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code runs under jest in Node, not inside n8n */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
	method: string;
	path: string;
	/** The query string, without its '?' ('' when none). */
	query: string;
	headers: http.IncomingHttpHeaders;
	/** Parsed when JSON; the text otherwise. */
	body: unknown;
	raw: Buffer;
}

export interface Reply {
	status: number;
	body?: unknown;
	headers?: Record<string, string>;
}

export interface FakeSubscription {
	id: string;
	url: string;
	families: string[];
	created_at: number;
}

/**
 * A loopback stand-in for the Gleaner gateway: checks `x-api-key`, records every request, serves the
 * account endpoints the trigger uses from memory, and answers anything else from replies a test
 * queues with `on()` (the last queued reply repeats).
 */
export class FakeGleaner {
	readonly requests: RecordedRequest[] = [];
	readonly subscriptions = new Map<string, FakeSubscription>();
	webhookSecret = 'whsec_fake_first';
	llmKeys: Array<Record<string, unknown>> = [];
	private readonly scripted = new Map<string, Reply[]>();
	private nextId = 1;

	private constructor(
		private readonly server: http.Server,
		readonly apiKey: string,
	) {}

	static async start(apiKey = 'gk_test_key'): Promise<FakeGleaner> {
		const server = http.createServer();
		const fake = new FakeGleaner(server, apiKey);
		server.on('request', (req, res) => void fake.handle(req, res));
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		return fake;
	}

	get url(): string {
		return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
	}

	/** Queue answers for `METHOD path`; they are used in order and the last one repeats. */
	on(method: string, path: string, ...replies: Reply[]): this {
		this.scripted.set(`${method} ${path}`, replies);
		return this;
	}

	requestsTo(method: string, path: string): RecordedRequest[] {
		return this.requests.filter((r) => r.method === method && r.path === path);
	}

	close(): Promise<void> {
		this.server.closeAllConnections();
		return new Promise((resolve) => this.server.close(() => resolve()));
	}

	private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
		const chunks: Buffer[] = [];
		for await (const chunk of req) chunks.push(chunk as Buffer);
		const raw = Buffer.concat(chunks);
		const text = raw.toString('utf8');
		const json = (req.headers['content-type'] ?? '').includes('json');
		const recorded: RecordedRequest = {
			method: req.method ?? 'GET',
			path: (req.url ?? '/').split('?')[0],
			query: (req.url ?? '/').split('?')[1] ?? '',
			headers: req.headers,
			body: text ? (json ? (JSON.parse(text) as unknown) : text) : undefined,
			raw,
		};
		this.requests.push(recorded);
		const reply = req.headers['x-api-key'] === this.apiKey ? this.answer(recorded) : { status: 401, body: { error: 'E004: Invalid API key' } };
		const payload = reply.body === undefined ? '' : JSON.stringify(reply.body);
		res.writeHead(reply.status, { ...(payload ? { 'content-type': 'application/json' } : {}), ...reply.headers });
		res.end(payload);
	}

	private answer(req: RecordedRequest): Reply {
		const queued = this.scripted.get(`${req.method} ${req.path}`);
		if (queued?.length) return queued.length > 1 ? queued.shift()! : queued[0];
		return this.accountEndpoint(req) ?? { status: 404, body: { error: 'E002: Not found' } };
	}

	private accountEndpoint(req: RecordedRequest): Reply | undefined {
		const route = `${req.method} ${req.path}`;
		if (route === 'GET /account') return { status: 200, body: { account_id: 'acc_1', name: 'acme', scopes: ['scrape', 'parse', 'account'] } };
		if (route === 'GET /account/webhook-secret') return { status: 200, body: { secret: this.webhookSecret } };
		if (route === 'GET /account/llm-keys') return { status: 200, body: { keys: this.llmKeys } };
		if (route === 'GET /account/webhooks') return { status: 200, body: { webhooks: [...this.subscriptions.values()] } };
		if (route === 'POST /account/webhooks') {
			const { url, families } = req.body as { url: string; families: string[] };
			const subscription = { id: `wh_${this.nextId++}`, url, families, created_at: 1_700_000_000 };
			this.subscriptions.set(subscription.id, subscription);
			return { status: 201, body: subscription };
		}
		const deleted = /^DELETE \/account\/webhooks\/(.+)$/.exec(route);
		if (deleted) {
			if (!this.subscriptions.delete(decodeURIComponent(deleted[1]))) return { status: 404, body: { error: 'E002: No such webhook subscription' } };
			return { status: 204 };
		}
		return undefined;
	}
}
