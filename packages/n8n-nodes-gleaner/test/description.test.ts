/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code runs under jest in Node, not inside n8n */
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INodeProperties, INodePropertyOptions, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes, NodeHelpers } from 'n8n-workflow';
import { GleanerApi } from '../credentials/GleanerApi.credentials.js';
import { Gleaner } from '../nodes/Gleaner/Gleaner.node.js';
import { GleanerTrigger } from '../nodes/GleanerTrigger/GleanerTrigger.node.js';
import { FakeGleaner } from './support/fake-gleaner.js';
import { authenticationHeaders, createLoadOptionsContext, forwardWithCredential, resolveCredentialExpression, type HttpCall } from './support/n8n-context.js';

const packageRoot = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const action = new Gleaner().description;
const trigger = new GleanerTrigger().description;
const credential = new GleanerApi();

function property(description: INodeTypeDescription, name: string, operation?: string): INodeProperties {
	const found = description.properties.find(
		(p) => p.name === name && (!operation || (p.displayOptions?.show?.operation as string[] | undefined)?.includes(operation)),
	);
	if (!found) throw new Error(`no property ${name}`);
	return found;
}

const optionValues = (p: INodeProperties) => (p.options as INodePropertyOptions[]).map((o) => o.value);

/** Parameters n8n shows (and keeps) for a resource/operation, defaults applied. */
const visibleParameters = (resource: string, operation: string, extra: Record<string, unknown> = {}) =>
	NodeHelpers.getNodeParameters(action.properties, { resource, operation, ...extra }, true, false, { typeVersion: 1 }, action);

describe('GleanerApi credential', () => {
	it('has a base URL and a password-typed API key', () => {
		expect(credential.name).toBe('gleanerApi');
		const [baseUrl, apiKey] = credential.properties;
		expect(baseUrl).toMatchObject({ name: 'baseUrl', type: 'string', default: 'http://localhost:8080' });
		expect(apiKey).toMatchObject({ name: 'apiKey', type: 'string', typeOptions: { password: true } });
		expect(credential.documentationUrl).toMatch(/^https:\/\//);
	});

	it('authenticates with the x-api-key header and tests with GET /account', () => {
		expect(authenticationHeaders({ baseUrl: 'http://x', apiKey: 'gk_abc' })).toEqual({ 'x-api-key': 'gk_abc' });
		expect(credential.test.request).toMatchObject({ method: 'GET', url: '/account' });
		expect(resolveCredentialExpression(String(credential.test.request.baseURL), { baseUrl: 'http://gl:8080', apiKey: 'k' })).toBe('http://gl:8080');
	});

	describe('test request against a service', () => {
		let fake: FakeGleaner;
		beforeAll(async () => {
			fake = await FakeGleaner.start('gk_right');
		});
		afterAll(() => fake.close());

		const runTest = (apiKey: string) => {
			const credentials = { baseUrl: `${fake.url}/`, apiKey };
			const calls: HttpCall[] = [];
			const request = credential.test.request;
			return forwardWithCredential(credentials, calls).call(undefined, 'gleanerApi', {
				baseURL: resolveCredentialExpression(String(request.baseURL), credentials),
				url: String(request.url),
				method: request.method,
				json: true,
				returnFullResponse: true,
				ignoreHttpStatusErrors: true,
			}) as Promise<{ statusCode: number }>;
		};

		/** n8n's credential test: the request, then the first rule matching the answer's status gives the message shown. */
		const outcomeAsN8nShowsIt = async (apiKey: string, baseUrl = `${fake.url}/`) => {
			const credentials = { baseUrl, apiKey };
			const request = credential.test.request;
			const answer = (await forwardWithCredential(credentials, []).call(undefined, 'gleanerApi', {
				baseURL: resolveCredentialExpression(String(request.baseURL), credentials),
				url: String(request.url),
				method: request.method,
				json: true,
				returnFullResponse: true,
				ignoreHttpStatusErrors: true,
			})) as { statusCode: number };
			if (answer.statusCode < 400) return { status: 'OK' };
			const rule = (credential.test.rules ?? []).find((r) => r.type === 'responseCode' && r.properties.value === answer.statusCode);
			return { status: 'Error', message: rule && rule.type === 'responseCode' ? rule.properties.message : `HTTP ${answer.statusCode}` };
		};

		it("shows Gleaner's own message for an unknown key and a wrong base URL, not a bare 'Unauthorized' (issue item 5)", async () => {
			expect(await outcomeAsN8nShowsIt('gk_right')).toEqual({ status: 'OK' });
			expect(await outcomeAsN8nShowsIt('gk_wrong')).toEqual({ status: 'Error', message: expect.stringMatching(/^Gleaner refused the API key \(E004: .*gleaner keys create/) });
			expect(await outcomeAsN8nShowsIt('gk_right', `${fake.url}/not-gleaner`)).toEqual({ status: 'Error', message: expect.stringMatching(/Base URL/) });
		});

		it('passes with the right key and fails with a wrong one', async () => {
			expect((await runTest('gk_right')).statusCode).toBe(200);
			expect((await runTest('gk_wrong')).statusCode).toBe(401);
			expect(fake.requests.slice(-2).map((r) => `${r.method} ${r.path} ${String(r.headers['x-api-key'])}`)).toEqual([
				'GET /account gk_right',
				'GET /account gk_wrong',
			]);
		});
	});
});

describe('Gleaner node description', () => {
	it('is a programmatic, tool-usable node with the Gleaner credential', () => {
		expect(action).toMatchObject({
			name: 'gleaner',
			usableAsTool: true,
			inputs: [NodeConnectionTypes.Main],
			outputs: [NodeConnectionTypes.Main],
			credentials: [{ name: 'gleanerApi', required: true }],
		});
		expect(action.subtitle).toContain('$parameter["operation"]');
		expect(typeof new Gleaner().execute).toBe('function');
	});

	it('offers scrape and status for web pages, parse and status for documents, crawl and map for websites', () => {
		expect(optionValues(property(action, 'resource'))).toEqual(['document', 'webPage', 'website']);
		const operations = action.properties.filter((p) => p.name === 'operation');
		const byResource = Object.fromEntries(operations.map((p) => [(p.displayOptions?.show?.resource as string[])[0], optionValues(p)]));
		expect(byResource).toEqual({ webPage: ['getStatus', 'scrape'], document: ['getStatus', 'parse'], website: ['cancelCrawl', 'crawl', 'getCrawl', 'map'] });
	});

	it('shows a crawl its wait budget and results choice only when it waits, and tags for crawls and maps', () => {
		expect(visibleParameters('website', 'crawl')).toMatchObject({ url: '', maxPages: 100, outputType: 'markdown', waitForResult: true, maxWaitSeconds: 1800, resultsToOutput: 'completed', tags: '', crawlOptions: {} });
		const startOnly = visibleParameters('website', 'crawl', { waitForResult: false }) ?? {};
		for (const hidden of ['maxWaitSeconds', 'pollIntervalSeconds', 'resultsToOutput']) expect(startOnly).not.toHaveProperty(hidden);
		expect(visibleParameters('website', 'map')).toMatchObject({ url: '', maxUrls: 5000, tags: '', mapOptions: {} });
		expect(visibleParameters('website', 'map')).not.toHaveProperty('waitForResult');
		expect(visibleParameters('website', 'getCrawl')).toMatchObject({ requestId: '', crawlOutput: 'pages', resultsToOutput: 'completed' });
		expect(visibleParameters('website', 'getCrawl', { crawlOutput: 'state' })).not.toHaveProperty('resultsToOutput');
		expect(Object.keys(visibleParameters('website', 'cancelCrawl') ?? {}).sort()).toEqual(['operation', 'requestId', 'resource']);
	});

	it('shows the prompt and LLM key only in LLM mode, and the wait budget only when waiting', () => {
		expect(Object.keys(visibleParameters('webPage', 'scrape') ?? {})).toEqual(
			expect.arrayContaining(['url', 'mode', 'outputType', 'useCache', 'waitForResult', 'maxWaitSeconds', 'pollIntervalSeconds']),
		);
		expect(visibleParameters('webPage', 'scrape')).not.toHaveProperty('prompt');
		expect(visibleParameters('webPage', 'scrape', { mode: 'llm' })).toMatchObject({ prompt: '', llmKeyId: '' });
		expect(visibleParameters('webPage', 'scrape', { waitForResult: false })).not.toHaveProperty('maxWaitSeconds');
		expect(visibleParameters('document', 'parse')).toMatchObject({ documentType: 'pdf', documentOutput: 'plain', waitForResult: true });
		expect(visibleParameters('document', 'getStatus')).not.toHaveProperty('waitForResult');
	});

	it('hides the fields Use Cache ignores (issue item 8)', () => {
		const cached = visibleParameters('webPage', 'scrape', { useCache: true, mode: 'llm' }) ?? {};
		for (const hidden of ['mode', 'outputType', 'prompt', 'llmKeyId', 'tags']) expect(cached).not.toHaveProperty(hidden);
		expect(cached).toMatchObject({ url: '', useCache: true });
	});

	it('offers the LLM key as a dropdown loaded from the account (issue item 8)', async () => {
		const llmKey = property(action, 'llmKeyId');
		expect(llmKey).toMatchObject({ type: 'options', typeOptions: { loadOptionsMethod: 'getLlmKeys' }, default: '' });
		const fake = await FakeGleaner.start('gk_opts');
		try {
			fake.llmKeys = [{ id: 'llmk_1', provider: 'anthropic', model: 'claude-test', label: 'Team key', masked: '••••abcd', createdAt: 1 }];
			const { ctx } = createLoadOptionsContext({ description: action, credentials: { baseUrl: fake.url, apiKey: 'gk_opts' } });
			const options = await new Gleaner().methods.loadOptions.getLlmKeys.call(ctx);
			expect(options.map((o) => [o.name, o.value])).toEqual([
				['Most Recently Added Key', ''],
				['Team key (claude-test, ••••abcd)', 'llmk_1'],
			]);
			expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /account/llm-keys']);
		} finally {
			await fake.close();
		}
	});

	it("names the 'account' scope when the LLM key list is refused to a key without it (issue 36 item 8)", async () => {
		const fake = await FakeGleaner.start('gk_opts');
		try {
			fake.on('GET', '/account/llm-keys', { status: 403, body: { error: 'E004: API key lacks permission for this API', details: ["this API needs a key with the 'account' scope; this key has 'scrape'"] } });
			const { ctx } = createLoadOptionsContext({ description: action, credentials: { baseUrl: fake.url, apiKey: 'gk_opts' } });
			const error = (await new Gleaner().methods.loadOptions.getLlmKeys.call(ctx).catch((e: unknown) => e)) as Error & { description?: string };
			expect(error.message).toBe("The Gleaner API key lacks the 'account' scope, which the LLM Key list needs");
			expect(error.description).toContain("this API needs a key with the 'account' scope; this key has 'scrape'");
		} finally {
			await fake.close();
		}
	});

	it("describes the action as the action, not with the trigger's words (issue item 8)", () => {
		expect(action.description).not.toBe(trigger.description);
		expect(action.description).toMatch(/^Scrape web pages, crawl and map websites, and parse documents/);
		expect(trigger.description).toMatch(/^Starts the workflow/);
	});

	it('accepts every document type and output the parser accepts', () => {
		expect(optionValues(property(action, 'documentType')).sort()).toEqual(
			['pdf', 'doc', 'docx', 'jpg', 'jpeg', 'png', 'txt', 'tiff', 'tif', 'heic', 'xlsx', 'xls', 'ods', 'csv', 'pptx', 'odp', 'odt', 'rtf', 'epub', 'html', 'md'].sort(),
		);
		expect(optionValues(property(action, 'documentOutput')).sort()).toEqual(['markdown', 'plain']);
		expect(optionValues(property(action, 'outputType')).sort()).toEqual(['markdown', 'plaintext']);
	});
});

describe('Gleaner Trigger description', () => {
	it('is a webhook trigger with the full lifecycle', () => {
		expect(trigger).toMatchObject({
			name: 'gleanerTrigger',
			group: ['trigger'],
			inputs: [],
			outputs: [NodeConnectionTypes.Main],
			credentials: [{ name: 'gleanerApi', required: true }],
			webhooks: [{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'webhook' }],
		});
		expect(trigger.displayName).toContain('Trigger');
		const methods = new GleanerTrigger().webhookMethods.default;
		expect([typeof methods.checkExists, typeof methods.create, typeof methods.delete]).toEqual(['function', 'function', 'function']);
	});

	it('lets the user pick the subscribed families', () => {
		const families = property(trigger, 'families');
		expect(families.type).toBe('multiOptions');
		expect(optionValues(families).sort()).toEqual(['batch', 'crawl', 'map', 'parse', 'scrape', 'scrape-v1']);
		// Crawls are chosen, not given: a workflow made for scrapes is not sent crawl notices.
		expect(families.default).toEqual(['scrape', 'scrape-v1', 'parse']);
	});
});

describe('package registration', () => {
	const pkg = JSON.parse(readFileSync(path.join(packageRoot, 'package.json'), 'utf8')) as {
		n8n: { nodes: string[]; credentials: string[]; n8nNodesApiVersion: number; strict: boolean };
		dependencies?: Record<string, string>;
		peerDependencies: Record<string, string>;
	};

	it('lists every node and credential source under dist/ and has no runtime dependencies', () => {
		const sourceOf = (distPath: string) => path.join(packageRoot, distPath.replace(/^dist\//, '').replace(/\.js$/, '.ts'));
		expect(pkg.n8n).toMatchObject({ n8nNodesApiVersion: 1, strict: true });
		for (const file of [...pkg.n8n.nodes, ...pkg.n8n.credentials]) {
			expect(file).toMatch(/^dist\//);
			expect(existsSync(sourceOf(file))).toBe(true);
		}
		expect(pkg.n8n.nodes).toHaveLength(2);
		expect(pkg.dependencies).toBeUndefined();
		expect(pkg.peerDependencies).toEqual({ 'n8n-workflow': '*' });
	});

	it('references icons and codex files that exist next to the sources', () => {
		const iconFiles = [
			path.join(packageRoot, 'credentials', (credential.icon as { light: string }).light.replace('file:', '')),
			...([[action, 'Gleaner'], [trigger, 'GleanerTrigger']] as const).map(([d, folder]) =>
				path.join(packageRoot, 'nodes', folder, (d.icon as { dark: string }).dark.replace('file:', '')),
			),
		];
		for (const file of iconFiles) expect(readFileSync(file, 'utf8')).toContain('<svg');
		for (const codex of ['nodes/Gleaner/Gleaner.node.json', 'nodes/GleanerTrigger/GleanerTrigger.node.json']) {
			const parsed = JSON.parse(readFileSync(path.join(packageRoot, codex), 'utf8')) as { node: string; categories: string[] };
			expect(parsed.node).toMatch(/^n8n-nodes-gleaner\.gleaner(Trigger)?$/);
			expect(parsed.categories.length).toBeGreaterThan(0);
		}
	});
});
