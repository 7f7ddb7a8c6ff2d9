import { createHmac } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { IDataObject } from 'n8n-workflow';
import { GleanerTrigger } from '../nodes/GleanerTrigger/GleanerTrigger.node.js';
import { FakeGleaner } from './support/fake-gleaner.js';
import { createWebhookContext, responseRecorder } from './support/n8n-context.js';

const trigger = new GleanerTrigger();
let fake: FakeGleaner;
let staticData: IDataObject;

beforeEach(async () => {
	fake = await FakeGleaner.start('gk_wh');
	staticData = {};
});
afterEach(() => fake.close());

/** The documented scheme, written out independently of the node's code. */
function sign(secret: string, rawBody: string, t: number): string {
	return `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${rawBody}`).digest('hex')}`;
}

const now = () => Math.floor(Date.now() / 1000);
const body = { request_id: 'req-1', status: 'completed', url: 'https://example.com/', timestamp: 1_700_000_000, content: { text: 'hi' } };
const raw = JSON.stringify(body);

async function deliver(signature: string | undefined, options: { rawBody?: Buffer | string; parsed?: IDataObject; parameters?: Record<string, unknown> } = {}) {
	const response = responseRecorder();
	const headers: Record<string, string | undefined> = {
		'content-type': 'application/json',
		'x-request-id': 'req-1',
		'x-webhook-delivery': 'dlv-42',
		'x-webhook-attempt': '2',
		'x-webhook-signature': signature,
	};
	const { ctx, logs } = createWebhookContext({
		description: trigger.description,
		credentials: { baseUrl: fake.url, apiKey: 'gk_wh' },
		parameters: { families: ['scrape'], ...options.parameters },
		staticData,
		workflowId: 'wf-7',
		request: { headers, body: options.parsed ?? body, rawBody: 'rawBody' in options ? options.rawBody : Buffer.from(raw) },
		response,
	});
	const result = await trigger.webhook.call(ctx);
	return { result, response: response.recorded, logs };
}

const secretFetches = () => fake.requestsTo('GET', '/account/webhook-secret').length;

describe('accepted deliveries', () => {
	it('starts the workflow with the body and delivery headers, checked against the secret stored at activation without any API call (issue item 2)', async () => {
		staticData.webhookSecret = fake.webhookSecret;
		for (let n = 0; n < 10; n++) {
			const { result, response } = await deliver(sign(fake.webhookSecret, raw, now()));
			// `tags` always, empty when the request had none (issue 36 item 9): one shape with the action node's.
			expect(result.workflowData).toEqual([[{ json: { ...body, tags: [], delivery: { request_id: 'req-1', delivery_id: 'dlv-42', attempt: 2 } } }]]);
			expect(result.noWebhookResponse).toBeUndefined();
			expect(response.status).toBeUndefined();
		}
		expect(fake.requests).toHaveLength(0);
	});

	it('checks the raw bytes as sent, not a re-serialisation of the parsed body', async () => {
		staticData.webhookSecret = fake.webhookSecret;
		const spaced = '{ "status": "completed",  "request_id": "req-1" }';
		const parsed = JSON.parse(spaced) as IDataObject;
		const { result } = await deliver(sign(fake.webhookSecret, spaced, now()), { rawBody: Buffer.from(spaced), parsed });
		expect(result.workflowData?.[0][0].json).toMatchObject(parsed);

		const asString = await deliver(sign(fake.webhookSecret, spaced, now()), { rawBody: spaced, parsed });
		expect(asString.result.workflowData).toHaveLength(1);
	});

	it('falls back to the serialised body when n8n kept no raw body', async () => {
		staticData.webhookSecret = fake.webhookSecret;
		const { result } = await deliver(sign(fake.webhookSecret, raw, now()), { rawBody: undefined });
		expect(result.workflowData).toHaveLength(1);
	});

	it('without a stored secret (a workflow activated by an older version) fetches it and says to reactivate', async () => {
		const { result, logs } = await deliver(sign(fake.webhookSecret, raw, now()));
		expect(result.workflowData).toHaveLength(1);
		expect(secretFetches()).toBe(1);
		expect(logs.map((l) => l.message).join('\n')).toMatch(/deactivate and activate the workflow/);
	});
});

describe('refused deliveries', () => {
	it('answers 401 to a forged signature and starts nothing, without calling the service', async () => {
		staticData.webhookSecret = fake.webhookSecret;
		const { result, response, logs } = await deliver(sign('not-the-secret', raw, now()));
		expect(result).toEqual({ noWebhookResponse: true });
		expect(response.status).toBe(401);
		expect(JSON.parse(response.body ?? '{}').error).toMatch(/^signature does not match .*deactivate and activate the workflow/);
		expect(fake.requests).toHaveLength(0);
		expect(logs.map((l) => l.level)).toEqual(['warn']);
	});

	it('answers 401 to a body changed after signing', async () => {
		staticData.webhookSecret = fake.webhookSecret;
		const signature = sign(fake.webhookSecret, raw, now());
		const tampered = raw.replace('completed', 'failed');
		const { result, response } = await deliver(signature, { rawBody: Buffer.from(tampered), parsed: JSON.parse(tampered) as IDataObject });
		expect(result.workflowData).toBeUndefined();
		expect(response.status).toBe(401);
	});

	it('answers 401 without a signature or with a malformed one, without calling the service', async () => {
		for (const header of [undefined, 'v1=abc', `t=${now()}`, `t=${now()},v1=zz`]) {
			const { result, response } = await deliver(header);
			expect(result.workflowData).toBeUndefined();
			expect(response.status).toBe(401);
		}
		expect(fake.requests).toHaveLength(0);
	});

	it('answers 401 to a correctly signed but stale delivery', async () => {
		const { result, response } = await deliver(sign(fake.webhookSecret, raw, now() - 301));
		expect(result.workflowData).toBeUndefined();
		expect(response.status).toBe(401);
		expect(JSON.parse(response.body ?? '{}').error).toContain('5 minutes');
	});

	it('answers 503 when the secret cannot be fetched, so the service retries', async () => {
		fake.on('GET', '/account/webhook-secret', { status: 503, body: { error: 'E006: Service temporarily unavailable' } });
		const { result, response } = await deliver(sign(fake.webhookSecret, raw, now()));
		expect(result.workflowData).toBeUndefined();
		expect(response.status).toBe(503);
		expect(response.headers?.['retry-after']).toBe('60');
		expect(staticData).toEqual({});
	});
});

describe('filters (issue item 6)', () => {
	const tagged = (tags: string[]) => {
		const withTags = { ...body, tags };
		return { parsed: withTags as IDataObject, rawBody: Buffer.from(JSON.stringify(withTags)), signed: sign(fake.webhookSecret, JSON.stringify(withTags), now()) };
	};

	it("skips requests made by its own workflow (tag n8n-workflow:<id>), so a trigger → scrape workflow does not start itself", async () => {
		staticData.webhookSecret = fake.webhookSecret;
		const own = tagged(['n8n-workflow:wf-7']);
		const skipped = await deliver(own.signed, own);
		expect(skipped.result).toEqual({ webhookResponse: { skipped: 'a request made by this workflow' } });
		const other = tagged(['n8n-workflow:wf-8']);
		expect((await deliver(other.signed, other)).result.workflowData).toHaveLength(1);
		// Turned off, its own requests start it too.
		expect((await deliver(own.signed, { ...own, parameters: { ignoreOwnRequests: false } })).result.workflowData).toHaveLength(1);
	});

	it('starts only for requests carrying the chosen tag', async () => {
		staticData.webhookSecret = fake.webhookSecret;
		const invoices = tagged(['n8n-workflow:wf-8', 'invoices']);
		const started = (await deliver(invoices.signed, { ...invoices, parameters: { onlyTag: 'invoices' } })).result.workflowData;
		expect(started).toHaveLength(1);
		expect(started![0][0].json.tags).toEqual(['n8n-workflow:wf-8', 'invoices']);
		const untagged = await deliver(sign(fake.webhookSecret, raw, now()), { parameters: { onlyTag: 'invoices' } });
		expect(untagged.result).toEqual({ webhookResponse: { skipped: 'a request without the tag invoices' } });
	});
});
