import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { IDataObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import { GleanerTrigger } from '../nodes/GleanerTrigger/GleanerTrigger.node.js';
import { FakeGleaner } from './support/fake-gleaner.js';
import { createHookContext } from './support/n8n-context.js';

const trigger = new GleanerTrigger();
const { checkExists, create, delete: remove } = trigger.webhookMethods.default;
const WEBHOOK_URL = 'https://n8n.test/webhook/6f1c0e4e-node/webhook';

let fake: FakeGleaner;
let staticData: IDataObject;

beforeEach(async () => {
	fake = await FakeGleaner.start('gk_hooks');
	staticData = {};
});
afterEach(() => fake.close());

function hook(families: string[] = ['scrape', 'parse']) {
	return createHookContext({
		description: trigger.description,
		credentials: { baseUrl: fake.url, apiKey: 'gk_hooks' },
		parameters: { families },
		staticData,
		webhookUrl: WEBHOOK_URL,
	});
}

const routes = () => fake.requests.map((r) => `${r.method} ${r.path}`);

describe('activation and deactivation', () => {
	it('finds nothing, subscribes, then finds its subscription', async () => {
		expect(await checkExists.call(hook().ctx)).toBe(false);
		expect(staticData).toEqual({});

		expect(await create.call(hook().ctx)).toBe(true);
		const [created] = fake.requestsTo('POST', '/account/webhooks');
		expect(created.body).toEqual({ url: WEBHOOK_URL, families: ['scrape', 'parse'] });
		expect(created.headers['x-api-key']).toBe('gk_hooks');
		expect(staticData.webhookId).toBe('wh_1');
		// Stored with the subscription, which n8n saves at activation (issue item 2).
		expect(staticData.webhookSecret).toBe('whsec_fake_first');
		expect([...fake.subscriptions.keys()]).toEqual(['wh_1']);

		fake.webhookSecret = 'whsec_rotated';
		expect(await checkExists.call(hook(['parse', 'scrape']).ctx)).toBe(true);
		expect(staticData.webhookSecret).toBe('whsec_rotated');
		expect(routes()).toEqual(['GET /account/webhooks', 'POST /account/webhooks', 'GET /account/webhook-secret', 'GET /account/webhooks', 'GET /account/webhook-secret']);
	});

	it('adopts a subscription for its URL when static data was lost', async () => {
		fake.subscriptions.set('wh_9', { id: 'wh_9', url: WEBHOOK_URL, families: ['scrape', 'parse'], created_at: 1 });
		fake.subscriptions.set('wh_8', { id: 'wh_8', url: 'https://elsewhere.test/hook', families: ['scrape'], created_at: 1 });
		expect(await checkExists.call(hook().ctx)).toBe(true);
		expect(staticData.webhookId).toBe('wh_9');
		expect(staticData.webhookSecret).toBe('whsec_fake_first');
		expect([...fake.subscriptions.keys()].sort()).toEqual(['wh_8', 'wh_9']);
	});

	it('removes a subscription for its URL with other families, so create() registers the current choice', async () => {
		await create.call(hook(['scrape']).ctx);
		expect(await checkExists.call(hook(['scrape', 'parse']).ctx)).toBe(false);
		expect(fake.subscriptions.size).toBe(0);
		expect(staticData).not.toHaveProperty('webhookId');
		expect(routes()).toContain('DELETE /account/webhooks/wh_1');
	});

	it('unsubscribes on delete and clears its static data', async () => {
		await create.call(hook().ctx);
		staticData.webhookSecret = 'whsec_cached';
		expect(await remove.call(hook().ctx)).toBe(true);
		expect(fake.subscriptions.size).toBe(0);
		expect(staticData).toEqual({});
		expect(routes().at(-1)).toBe('DELETE /account/webhooks/wh_1');
	});

	it('treats an already removed subscription as deleted and logs it', async () => {
		staticData.webhookId = 'wh_gone';
		const { ctx, logs } = hook();
		expect(await remove.call(ctx)).toBe(true);
		expect(staticData).toEqual({});
		expect(logs).toEqual([{ level: 'info', message: 'Gleaner webhook subscription wh_gone was already gone' }]);
	});

	it('calls nothing on delete when it never subscribed', async () => {
		expect(await remove.call(hook().ctx)).toBe(true);
		expect(fake.requests).toHaveLength(0);
	});
});

describe('failures', () => {
	it('fails activation on an http webhook URL saying what to do (issue item 4)', async () => {
		fake.on('POST', '/account/webhooks', { status: 400, body: { error: 'E009: url must use https' } });
		const error = (await create.call(hook().ctx).catch((e: unknown) => e)) as NodeOperationError;
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toBe(`Gleaner will not deliver to this workflow's webhook URL, ${WEBHOOK_URL}`);
		expect(error.description).toMatch(/^Gleaner answered: E009: url must use https\. .*WEBHOOK_URL.*GLEANER_ALLOW_PRIVATE_NETWORKS=true/);
		expect(staticData).toEqual({});
	});

	it('fails activation with a key lacking the account scope naming the scope (issue item 4), and does not report "not found"', async () => {
		const refused = { error: 'E004: API key lacks permission for this API', details: ["this API needs a key with the 'account' scope; this key has 'scrape'"] };
		fake.on('GET', '/account/webhooks', { status: 403, body: refused });
		fake.on('POST', '/account/webhooks', { status: 403, body: refused });
		for (const step of [checkExists, create]) {
			const error = (await step.call(hook().ctx).catch((e: unknown) => e)) as NodeOperationError;
			expect(error).toBeInstanceOf(NodeOperationError);
			expect(error.message).toBe("The Gleaner API key lacks the 'account' scope, which the Gleaner Trigger (to subscribe to the account's requests) needs");
			expect(error.description).toBe(
				"Gleaner answered: E004: API key lacks permission for this API (this API needs a key with the 'account' scope; this key has 'scrape'). Create a key with that scope (gleaner keys create --account <name> --scopes scrape,parse,account) and use it in this credential.",
			);
		}
		expect(staticData).toEqual({});
	});

	it('fails activation with the service error for other refusals', async () => {
		fake.on('POST', '/account/webhooks', { status: 400, body: { error: 'E009: at most 20 webhook subscriptions per account' } });
		const error = (await create.call(hook().ctx).catch((e: unknown) => e)) as NodeApiError;
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toBe('E009: at most 20 webhook subscriptions per account');
	});

	it('does not clear its state when unsubscribing fails', async () => {
		staticData.webhookId = 'wh_1';
		fake.on('DELETE', '/account/webhooks/wh_1', { status: 503, body: { error: 'E006: Service temporarily unavailable' } });
		await expect(remove.call(hook().ctx)).rejects.toBeInstanceOf(NodeApiError);
		expect(staticData.webhookId).toBe('wh_1');
	});
});
