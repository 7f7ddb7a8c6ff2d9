/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code runs under jest in Node, not inside n8n */
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { INodeParameters } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';
import { Gleaner } from '../nodes/Gleaner/Gleaner.node.js';
import { FakeGleaner } from './support/fake-gleaner.js';
import { createExecuteContext, type ExecuteSetup, type TestBinary } from './support/n8n-context.js';

const node = new Gleaner();
let fake: FakeGleaner;

beforeEach(async () => {
	fake = await FakeGleaner.start('gk_exec');
});
afterEach(() => fake.close());

function run(parameters: INodeParameters, extra: Partial<ExecuteSetup> = {}) {
	const { ctx, calls } = createExecuteContext({
		description: node.description,
		credentials: { baseUrl: fake.url, apiKey: 'gk_exec' },
		parameters,
		...extra,
	});
	return { result: node.execute.call(ctx), calls };
}

const scrapeParams = (extra: INodeParameters = {}): INodeParameters => ({
	resource: 'webPage',
	operation: 'scrape',
	url: 'https://example.com/a',
	...extra,
});

/** The status endpoint's shape of a completed basic scrape, `tags` always: what the node outputs whichever way the result came (issue item 1). */
const asStatus = (flat: typeof basicResult) => ({
	request_id: flat.request_id,
	url: flat.url,
	status: 'completed',
	timestamp: flat.timestamp,
	content: { text: flat.text_content, markdown: flat.markdown_content, meta: flat.meta, links: flat.links, images: flat.images },
	tags: [],
});

const basicResult = {
	request_id: '0190a1b2-0000-7000-8000-000000000001',
	url: 'https://example.com/a',
	status: 'completed',
	timestamp: 1_700_000_000,
	text_content: 'Hello world',
	markdown_content: '# Hello\n\nworld',
	meta: { title: 'Hello' },
	links: [],
	images: [],
};

describe('scrape', () => {
	it('sends a basic scrape with the key and returns the answer as one paired item', async () => {
		fake.on('POST', '/web-scrapper/', { status: 200, body: basicResult });
		const { result, calls } = run(scrapeParams({ outputType: 'markdown' }));
		const [[item], ...rest] = await result;
		expect(rest).toEqual([]);
		expect(item).toEqual({ json: asStatus(basicResult), pairedItem: { item: 0 } });
		const [sent] = fake.requestsTo('POST', '/web-scrapper/');
		expect(sent.headers['x-api-key']).toBe('gk_exec');
		expect(sent.body).toEqual({ url: 'https://example.com/a', output_type: 'markdown', tags: ['n8n-workflow:wf-test'] });
		expect(calls.map((c) => c.credentialsType)).toEqual(['gleanerApi']);
	});

	it('sends render_js and the loading options only when set', async () => {
		fake.on('POST', '/web-scrapper/', { status: 200, body: basicResult });
		const { result } = run(scrapeParams({ renderJs: 'always', loadingOptions: { timeout: 45000, waitFor: 1500, waitForSelector: ' #report table ' } }));
		await result;
		const { result: never } = run(scrapeParams({ renderJs: 'never' }));
		await never;
		const [rendered, staticOnly] = fake.requestsTo('POST', '/web-scrapper/');
		const tags = ['n8n-workflow:wf-test'];
		expect(rendered.body).toEqual({ url: 'https://example.com/a', output_type: 'markdown', render_js: true, timeout: 45000, wait_for: 1500, wait_for_selector: '#report table', tags });
		expect(staticOnly.body).toEqual({ url: 'https://example.com/a', output_type: 'markdown', render_js: false, tags });
	});

	it('sends the prompt and the chosen LLM key in LLM mode', async () => {
		const llmResult = { ...basicResult, content: { text: 'Hello world', meta: {}, links: [], images: [] }, llm_output: { price: 3 } };
		fake.on('POST', '/web-scrapper/', { status: 200, body: llmResult });
		const { result } = run(scrapeParams({ mode: 'llm', prompt: 'Find the price', llmKeyId: ' lk_1 ' }));
		const [[item]] = await result;
		expect(item.json.llm_output).toEqual({ price: 3 });
		expect(fake.requestsTo('POST', '/web-scrapper/')[0].body).toEqual({
			url: 'https://example.com/a',
			output_type: 'markdown',
			use_llm: true,
			prompt: 'Find the price',
			llm_key_id: 'lk_1',
			tags: ['n8n-workflow:wf-test'],
		});
	});

	it('asks only for the cached result when Use Cache is on', async () => {
		fake.on('POST', '/web-scrapper/', { status: 200, body: { ...basicResult, cached: true } });
		const { result } = run(scrapeParams({ useCache: true, mode: 'llm', prompt: 'ignored' }));
		const [[item]] = await result;
		expect(item.json.cached).toBe(true);
		expect(fake.requestsTo('POST', '/web-scrapper/')[0].body).toEqual({ url: 'https://example.com/a', use_cache: true });
	});
});

describe('following a 202', () => {
	const accepted = { request_id: 'req-7', url: 'https://example.com/a', status: 'processing', message: 'Request is still processing.' };
	const processing = { request_id: 'req-7', url: 'https://example.com/a', status: 'processing', timestamp: 1 };
	const fast = { maxWaitSeconds: 5, pollIntervalSeconds: 0.05 };

	it('polls the status endpoint until the scrape completes', async () => {
		const completed = { ...processing, status: 'completed', content: { text: 'done', meta: {}, links: [], images: [] } };
		fake.on('POST', '/web-scrapper/', { status: 202, body: accepted });
		fake.on('GET', '/web-scrapper/req-7', { status: 200, body: processing }, { status: 200, body: processing }, { status: 200, body: completed });
		const [[item]] = await run(scrapeParams(fast)).result;
		expect(item.json).toEqual({ ...completed, tags: [] });
		expect(fake.requestsTo('GET', '/web-scrapper/req-7')).toHaveLength(3);
	});

	it('polls the document status endpoint until the parse completes', async () => {
		const done = { requestId: 'doc-1', status: 'COMPLETED', type: 'pdf', createdAt: 1, data: 'Page one' };
		fake.on('POST', '/documents/parse', { status: 202, body: { requestId: 'doc-1', status: 'PROCESSING', message: 'later' } });
		fake.on('GET', '/documents/status/doc-1', { status: 200, body: { requestId: 'doc-1', status: 'PROCESSING' } }, { status: 200, body: done });
		const [[item]] = await run({ resource: 'document', operation: 'parse', url: 'https://example.com/r.pdf', documentOutput: 'markdown', ...fast }).result;
		expect(item.json).toEqual({ ...done, tags: [] });
		expect(fake.requestsTo('POST', '/documents/parse')[0].body).toEqual({ url: 'https://example.com/r.pdf', type: 'pdf', output: 'markdown', tags: ['n8n-workflow:wf-test'] });
	});

	it('waits out a rate limit answer while polling', async () => {
		const completed = { ...processing, status: 'completed', content: { text: 'done' } };
		fake.on('POST', '/web-scrapper/', { status: 202, body: accepted });
		fake.on('GET', '/web-scrapper/req-7', { status: 429, body: { error: 'E429: Rate limit exceeded' }, headers: { 'retry-after': '0' } }, { status: 200, body: completed });
		const [[item]] = await run(scrapeParams(fast)).result;
		expect(item.json.status).toBe('completed');
	});

	it('turns a request that failed while polled into an error', async () => {
		fake.on('POST', '/web-scrapper/', { status: 202, body: accepted });
		fake.on('GET', '/web-scrapper/req-7', { status: 200, body: { ...processing, status: 'failed', error: 'E008: target answered HTTP 404' } });
		const error = await run(scrapeParams(fast)).result.catch((e: unknown) => e);
		expect(error).toBeInstanceOf(NodeApiError);
		expect((error as NodeApiError).message).toBe('E008: target answered HTTP 404');
	});

	it('returns the processing answer flagged when the budget runs out, after a last poll at the deadline', async () => {
		fake.on('POST', '/web-scrapper/', { status: 202, body: accepted });
		fake.on('GET', '/web-scrapper/req-7', { status: 200, body: processing });
		const started = Date.now();
		// An interval longer than the budget: the only poll is the one at the deadline.
		const [[item]] = await run(scrapeParams({ maxWaitSeconds: 0.3, pollIntervalSeconds: 1 })).result;
		const elapsed = Date.now() - started;
		expect(item.json).toEqual({ ...processing, tags: [], wait_timed_out: true });
		expect(elapsed).toBeGreaterThanOrEqual(300);
		expect(elapsed).toBeLessThan(900);
		expect(fake.requestsTo('GET', '/web-scrapper/req-7')).toHaveLength(1);
	});

	it('returns the 202 answer without polling when told not to wait', async () => {
		fake.on('POST', '/web-scrapper/', { status: 202, body: accepted });
		const [[item]] = await run(scrapeParams({ waitForResult: false })).result;
		expect(item.json).toEqual({ ...accepted, tags: [] });
		expect(fake.requestsTo('GET', '/web-scrapper/req-7')).toHaveLength(0);
	});
});

describe('status reads', () => {
	it('reads a scrape record, failed ones included', async () => {
		const failed = { request_id: 'r/1', url: 'u', status: 'failed', timestamp: 2, error: 'E008: boom' };
		fake.on('GET', '/web-scrapper/r%2F1', { status: 200, body: failed });
		const [[item]] = await run({ resource: 'webPage', operation: 'getStatus', requestId: ' r/1 ' }).result;
		expect(item.json).toEqual({ ...failed, tags: [] });
	});

	it('reports an unknown scrape id with the id asked for, not the id of the lookup (issue 36 item 10)', async () => {
		const asked = '0190a1b2-0000-7000-8000-0000000000ff';
		fake.on('GET', `/web-scrapper/${asked}`, { status: 404, body: { error: 'E002: Request ID not found' }, headers: { 'x-request-id': '0190a1b2-0000-7000-8000-00000000aaaa' } });
		const [[item]] = await run({ resource: 'webPage', operation: 'getStatus', requestId: asked }, { continueOnFail: true }).result;
		expect(item.json).toEqual({ error: 'E002: Request ID not found', details: [], request_id: asked, http_status: 404 });
		const error = (await run({ resource: 'webPage', operation: 'getStatus', requestId: asked }).result.catch((e: unknown) => e)) as NodeApiError;
		expect(error.description).toBe(`Gleaner request ID: ${asked}`);
	});

	it('reports an unknown document id with the service code', async () => {
		fake.on('GET', '/documents/status/nope', { status: 404, body: { error: '404-001: Request ID not found', details: [] } });
		const error = (await run({ resource: 'document', operation: 'getStatus', requestId: 'nope' }).result.catch((e: unknown) => e)) as NodeApiError;
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toBe('404-001: Request ID not found');
		expect(error.httpCode).toBe('404');
	});
});

describe('errors', () => {
	it('throws the service error with its code, HTTP status and details', async () => {
		fake.on('POST', '/documents/parse', { status: 400, body: { error: '400-002: Invalid URL format', details: ['host is not public'] } });
		const error = (await run({ resource: 'document', operation: 'parse', url: 'http://10.0.0.1/x.pdf' }).result.catch((e: unknown) => e)) as NodeApiError;
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toBe('400-002: Invalid URL format');
		expect(error.description).toBe('host is not public');
		expect(error.httpCode).toBe('400');
		expect(error.context.itemIndex).toBe(0);
	});

	it('with Continue On Fail, outputs the error for the failing item and carries on', async () => {
		fake.on('POST', '/web-scrapper/', { status: 400, body: { error: 'E003: URL must be http or https' } }, { status: 200, body: basicResult });
		const [items] = await run(scrapeParams(), {
			continueOnFail: true,
			items: [{ json: {}, params: { url: 'ftp://example.com' } }, { json: {} }],
		}).result;
		expect(items).toEqual([
			{ json: { error: 'E003: URL must be http or https', details: [], request_id: null, http_status: 400 }, pairedItem: { item: 0 } },
			{ json: asStatus(basicResult), pairedItem: { item: 1 } },
		]);
		expect(fake.requestsTo('POST', '/web-scrapper/').map((r) => (r.body as { url: string }).url)).toEqual(['ftp://example.com', 'https://example.com/a']);
	});

	it('names the URL it tried when no gateway answers there (issue 36 item 10), not n8n\'s "The service refused the connection"', async () => {
		const stopped = await FakeGleaner.start('gk_exec');
		const baseUrl = stopped.url;
		await stopped.close();
		const { ctx } = createExecuteContext({ description: node.description, credentials: { baseUrl, apiKey: 'gk_exec' }, parameters: scrapeParams() });
		const error = (await node.execute.call(ctx).catch((e: unknown) => e)) as NodeApiError;
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toBe(`Could not reach Gleaner at ${baseUrl}`);
		expect(error.description).toBe('ECONNREFUSED: nothing accepts connections at that address. Is the Gleaner gateway running there, and is the Base URL of the Gleaner API credential right?');
	});

	it("names the scope a key lacks: a parse with a scrape-only key (issue 36 item 8)", async () => {
		const refused = { error: '403-001: API key lacks permission for this API', details: ["this API needs a key with the 'parse' scope; this key has 'scrape'"] };
		fake.on('POST', '/documents/parse', { status: 403, body: refused });
		const error = (await run({ resource: 'document', operation: 'parse', url: 'https://example.com/r.pdf' }).result.catch((e: unknown) => e)) as NodeApiError;
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toBe("The Gleaner API key lacks the 'parse' scope, which the Document operations needs");
		expect(error.description).toBe(
			"Gleaner answered: 403-001: API key lacks permission for this API (this API needs a key with the 'parse' scope; this key has 'scrape'). Create a key with that scope (gleaner keys create --account <name> --scopes scrape,parse,account) and use it in this credential.",
		);
		expect(error.httpCode).toBe('403');
		// A gateway that names no scope: the node still does, from the operation.
		fake.on('POST', '/web-scrapper/', { status: 403, body: { error: 'E004: API key lacks permission for this API' } });
		const scrape = (await run(scrapeParams()).result.catch((e: unknown) => e)) as NodeApiError;
		expect(scrape.message).toBe("The Gleaner API key lacks the 'scrape' scope, which the Web Page operations needs");
		// Continue On Fail keeps Gleaner's own answer.
		fake.on('POST', '/documents/parse', { status: 403, body: refused });
		const [[item]] = await run({ resource: 'document', operation: 'parse', url: 'https://example.com/r.pdf' }, { continueOnFail: true }).result;
		expect(item.json).toEqual({ ...refused, request_id: null, http_status: 403 });
	});
});

describe('one output shape (issue item 1)', () => {
	it('outputs content.text and content.markdown whether the scrape finished inside the window, came from the cache or was followed after a 202', async () => {
		const followed = { request_id: 'req-9', url: 'https://example.com/a', status: 'completed', timestamp: 1_700_000_000, content: asStatus(basicResult).content };
		fake.on('POST', '/web-scrapper/', { status: 200, body: basicResult }, { status: 200, body: { ...basicResult, cached: true } }, {
			status: 202,
			body: { request_id: 'req-9', url: 'https://example.com/a', status: 'processing', message: 'later' },
		});
		fake.on('GET', '/web-scrapper/req-9', { status: 200, body: followed });
		const outputs = [];
		for (const params of [{}, { useCache: true }, { maxWaitSeconds: 5, pollIntervalSeconds: 0.05 }]) {
			const [[item]] = await run(scrapeParams({ outputType: 'markdown', ...params })).result;
			outputs.push(item.json);
		}
		for (const json of outputs) {
			expect(json).not.toHaveProperty('text_content');
			expect((json.content as { text: string; markdown: string }).markdown).toBe('# Hello\n\nworld');
			expect((json.content as { text: string }).text).toBe('Hello world');
		}
		expect(outputs[1]).toMatchObject({ cached: true });
		// The same keys every time, tags included although the request had none.
		for (const json of outputs) expect(json.tags).toEqual([]);
		expect(Object.keys(outputs[0]).sort()).toEqual(Object.keys(outputs[2]).sort());
	});

	it('outputs a parse in one shape, the status record\'s, whether it finished inside the window or was followed (issue 36 item 9)', async () => {
		const record = { requestId: 'doc-7', status: 'COMPLETED', type: 'pdf', createdAt: 1_700_000_000, url: 'https://example.com/r.pdf', data: 'Page one', pages: 1 };
		fake.on('POST', '/documents/parse', { status: 200, body: record }, { status: 202, body: { requestId: 'doc-7', status: 'PROCESSING', message: 'later' } });
		fake.on('GET', '/documents/status/doc-7', { status: 200, body: record });
		const outputs = [];
		for (const params of [{}, { maxWaitSeconds: 5, pollIntervalSeconds: 0.05 }]) {
			const [[item]] = await run({ resource: 'document', operation: 'parse', url: 'https://example.com/r.pdf', ...params }).result;
			outputs.push(item.json);
		}
		expect(outputs).toEqual([{ ...record, tags: [] }, { ...record, tags: [] }]);
	});

	it('defaults Output Type to markdown, so the README\'s {{$json.content.markdown}} works on a new node (issue 36 item 10)', async () => {
		expect(node.description.properties.find((p) => p.name === 'outputType')?.default).toBe('markdown');
		const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
		expect(readme).toContain('{{$json.content.markdown}}');
		fake.on('POST', '/web-scrapper/', { status: 200, body: basicResult });
		const [[item]] = await run(scrapeParams()).result;
		expect(fake.requestsTo('POST', '/web-scrapper/')[0].body).toMatchObject({ output_type: 'markdown' });
		expect((item.json.content as { markdown: string }).markdown).toBe('# Hello\n\nworld');
	});
});

describe('Continue On Fail keeps the whole error (issue item 3)', () => {
	it('outputs the code and message, every detail, the request id and the HTTP status of a refused request', async () => {
		fake.on('POST', '/documents/parse', {
			status: 400,
			body: { error: '400-001: Invalid file type', details: ['The PDF requires a password'], requestId: '0192f0aa-0000-7000-8000-000000000001' },
		});
		const [[item]] = await run({ resource: 'document', operation: 'parse', url: 'https://example.com/locked.pdf' }, { continueOnFail: true }).result;
		expect(item.json).toEqual({
			error: '400-001: Invalid file type',
			details: ['The PDF requires a password'],
			request_id: '0192f0aa-0000-7000-8000-000000000001',
			http_status: 400,
		});
	});

	it('outputs the details of a request that failed while the node waited for it', async () => {
		fake.on('POST', '/documents/parse', { status: 202, body: { requestId: 'doc-404', status: 'PROCESSING', message: 'later' } });
		fake.on('GET', '/documents/status/doc-404', {
			status: 200,
			body: { requestId: 'doc-404', status: 'FAILED', type: 'pdf', createdAt: 1, error: '500-001: Processing error', details: ['document download failed: target answered HTTP 404'] },
		});
		const params = { resource: 'document', operation: 'parse', url: 'https://example.com/gone.pdf', maxWaitSeconds: 5, pollIntervalSeconds: 0.05 };
		const [[item]] = await run(params, { continueOnFail: true }).result;
		expect(item.json).toEqual({ error: '500-001: Processing error', details: ['document download failed: target answered HTTP 404'], request_id: 'doc-404', http_status: null });
		// Without Continue On Fail the error shows the same details and the request id.
		const error = (await run(params).result.catch((e: unknown) => e)) as NodeApiError;
		expect(error.message).toBe('500-001: Processing error');
		expect(error.description).toBe('document download failed: target answered HTTP 404; Gleaner request ID: doc-404');
	});
});

describe('parsing binary data', () => {
	const pdf = Buffer.from('%PDF-1.7\r\n\u0000\u00ff binary body');
	const binaryParse = (binary: Record<string, TestBinary> | undefined, extra: INodeParameters = {}) =>
		run({ resource: 'document', operation: 'parse', source: 'binary', documentOutput: 'markdown', tags: 'invoices, nightly', ...extra }, { items: [{ json: {}, binary }] }).result;

	it("uploads the item's binary property as multipart/form-data with its file name, type, output and tags", async () => {
		fake.on('POST', '/documents/parse', { status: 200, body: { requestId: 'up-1', status: 'COMPLETED', data: 'Invoice 42', type: 'pdf', pages: 1 } });
		const [[item]] = await binaryParse({ data: { fileName: 'invoice.pdf', mimeType: 'application/pdf', bytes: pdf } });
		expect(item.json).toEqual({ requestId: 'up-1', status: 'COMPLETED', data: 'Invoice 42', type: 'pdf', pages: 1, tags: [] });
		const [sent] = fake.requestsTo('POST', '/documents/parse');
		const boundary = /^multipart\/form-data; boundary=(\S+)$/.exec(String(sent.headers['content-type']))?.[1];
		expect(boundary).toBeDefined();
		const parts = sent.raw.toString('latin1').split(`--${boundary}`).slice(1, -1);
		const field = (name: string) => parts.find((p) => p.includes(`name="${name}"`))?.split('\r\n\r\n')[1]?.replace(/\r\n$/, '');
		expect({ type: field('type'), output: field('output'), tags: field('tags') }).toEqual({ type: 'pdf', output: 'markdown', tags: 'n8n-workflow:wf-test,invoices,nightly' });
		const file = parts.find((p) => p.includes('name="file"'))!;
		expect(file).toContain('filename="invoice.pdf"');
		expect(Buffer.from(file.split('\r\n\r\n')[1].replace(/\r\n$/, ''), 'latin1')).toEqual(pdf);
		expect(sent.headers['x-api-key']).toBe('gk_exec');
	});

	it('fails the item with a clear message when the binary property is missing', async () => {
		const error = (await binaryParse(undefined).catch((e: unknown) => e)) as Error;
		expect(error.message).toMatch(/binary file 'data'/);
		expect(fake.requestsTo('POST', '/documents/parse')).toHaveLength(0);
	});
});

describe('website: crawl and map', () => {
	const crawlId = '0190a1b2-0000-7000-8000-00000000c001';
	const counts = { discovered: 5, queued: 0, processing: 0, completed: 2, failed: 1, skipped: 1, skipped_by: { robots: 1 } };
	const head = { request_id: crawlId, url: 'https://docs.example.com/', created_at: 1, counts };
	const page = (n: number) => ({ url: `https://docs.example.com/p${n}`, status: 'completed', depth: 1, content: { text: `Page ${n}`, markdown: `# Page ${n}`, meta: { title: `Page ${n}` }, links: [], images: [] } });
	const failed = { url: 'https://docs.example.com/gone', status: 'failed', depth: 1, error: 'E008: target answered HTTP 404' };
	const skipped = { url: 'https://docs.example.com/private', status: 'skipped', reason: 'robots.txt disallows it (line 2)' };
	const fast = { maxWaitSeconds: 5, pollIntervalSeconds: 0.05 };
	const crawlParams = (extra: INodeParameters = {}): INodeParameters => ({ resource: 'website', operation: 'crawl', url: ' https://docs.example.com/ ', maxPages: 50, ...extra });
	/** Reads of a crawl: running with its first page, running with nothing new, then ended with the rest. */
	const scriptCrawl = () =>
		fake.on(
			'GET',
			`/web-scrapper/crawl/${crawlId}`,
			{ status: 200, body: { ...head, status: 'processing', pages: [page(0)], next: '1' } },
			{ status: 200, body: { ...head, status: 'processing', pages: [], next: '1' } },
			{ status: 200, body: { ...head, status: 'completed', reason: 'every page in scope was crawled', tags: ['docs'], pages: [page(1), failed, skipped], next: null } },
		);

	beforeEach(() => {
		fake.on('POST', '/web-scrapper/crawl', { status: 202, body: { request_id: crawlId, status: 'processing', url: 'https://docs.example.com/' } });
	});

	it('starts a crawl with its options and, told not to wait, outputs the answer naming its request', async () => {
		const crawlOptions = { includePaths: '^/docs/\n  ^/guide/ \n', excludePaths: '', maxDepth: 2, sitemap: 'skip', renderJs: 'never', maxConcurrency: 3 };
		const [items] = await run(crawlParams({ waitForResult: false, crawlOptions, tags: 'docs' })).result;
		expect(items).toEqual([{ json: { request_id: crawlId, status: 'processing', url: 'https://docs.example.com/', tags: [] }, pairedItem: { item: 0 } }]);
		expect(fake.requestsTo('POST', '/web-scrapper/crawl')[0].body).toEqual({
			url: 'https://docs.example.com/',
			limit: 50,
			output_type: 'markdown',
			include_paths: ['^/docs/', '^/guide/'],
			sitemap: 'skip',
			max_depth: 2,
			max_concurrency: 3,
			render_js: false,
			tags: ['n8n-workflow:wf-test', 'docs'],
		});
		expect(fake.requestsTo('GET', `/web-scrapper/crawl/${crawlId}`)).toHaveLength(0);
	});

	it('follows a crawl to its end and outputs each page read as an item, in order, paired with its input item, with the crawl\'s tags', async () => {
		scriptCrawl();
		const [items] = await run(crawlParams(fast)).result;
		expect(items).toEqual([0, 1].map((n) => ({ json: { request_id: crawlId, ...page(n), tags: ['docs'] }, pairedItem: { item: 0 } })));
		// Read through the cursor: from 0, on from 1 at once, then 1 again after a poll interval.
		expect(fake.requestsTo('GET', `/web-scrapper/crawl/${crawlId}`).map((r) => r.query)).toEqual(['cursor=0', 'cursor=1', 'cursor=1']);
	});

	it('with All Results, also outputs the URLs that failed or were skipped, saying why', async () => {
		scriptCrawl();
		const [items] = await run(crawlParams({ ...fast, resultsToOutput: 'all' })).result;
		expect(items.map((item) => [item.json.url, item.json.status, item.json.error ?? item.json.reason ?? null])).toEqual([
			['https://docs.example.com/p0', 'completed', null],
			['https://docs.example.com/p1', 'completed', null],
			['https://docs.example.com/gone', 'failed', 'E008: target answered HTTP 404'],
			['https://docs.example.com/private', 'skipped', 'robots.txt disallows it (line 2)'],
		]);
	});

	it('fails the item for a crawl that ends failed; outputs its state flagged when the wait runs out', async () => {
		fake.on('GET', `/web-scrapper/crawl/${crawlId}`, { status: 200, body: { ...head, status: 'failed', error: 'E008: the start URL could not be crawled: target answered HTTP 404', pages: [], next: null } });
		const error = await run(crawlParams(fast)).result.catch((e: unknown) => e);
		expect((error as NodeApiError).message).toBe('E008: the start URL could not be crawled: target answered HTTP 404');

		fake.on('GET', `/web-scrapper/crawl/${crawlId}`, { status: 200, body: { ...head, status: 'processing', pages: [], next: '0' } });
		const [[item]] = await run(crawlParams({ maxWaitSeconds: 0.3, pollIntervalSeconds: 0.1 })).result;
		expect(item.json).toEqual({ ...head, status: 'processing', pages: [], next: '0', tags: [], wait_timed_out: true });
	});

	it('Get Crawl outputs every result listed so far through the cursor, or its state; Cancel Crawl its state', async () => {
		fake.on(
			'GET',
			`/web-scrapper/crawl/${crawlId}`,
			{ status: 200, body: { ...head, status: 'processing', pages: [page(0), page(1)], next: '2' } },
			{ status: 200, body: { ...head, status: 'processing', pages: [], next: '2' } },
		);
		const [items] = await run({ resource: 'website', operation: 'getCrawl', requestId: ` ${crawlId} ` }).result;
		expect(items.map((item) => item.json.url)).toEqual(['https://docs.example.com/p0', 'https://docs.example.com/p1']);
		expect(fake.requestsTo('GET', `/web-scrapper/crawl/${crawlId}`).map((r) => r.query)).toEqual(['cursor=0', 'cursor=2']);

		fake.on('GET', `/web-scrapper/crawl/${crawlId}`, { status: 200, body: { ...head, status: 'processing', pages: [], next: '0' } });
		const [[state]] = await run({ resource: 'website', operation: 'getCrawl', requestId: crawlId, crawlOutput: 'state' }).result;
		expect(state.json).toMatchObject({ request_id: crawlId, status: 'processing', counts });
		expect(fake.requestsTo('GET', `/web-scrapper/crawl/${crawlId}`).at(-1)!.query).toBe('cursor=0&limit=0');

		fake.on('DELETE', `/web-scrapper/crawl/${crawlId}`, { status: 200, body: { ...head, status: 'cancelled', reason: 'cancelled by the caller', pages: [], next: '0' } });
		const [[cancelled]] = await run({ resource: 'website', operation: 'cancelCrawl', requestId: crawlId }).result;
		expect(cancelled.json).toMatchObject({ request_id: crawlId, status: 'cancelled', reason: 'cancelled by the caller', tags: [] });
	});

	it('reports an unknown crawl with the id asked for, and the scope Website operations need', async () => {
		fake.on('GET', '/web-scrapper/crawl/nope', { status: 404, body: { error: 'E002: Request ID not found' } });
		const error = (await run({ resource: 'website', operation: 'getCrawl', requestId: 'nope' }).result.catch((e: unknown) => e)) as NodeApiError;
		expect(error.message).toBe('E002: Request ID not found');
		expect(String(error.description)).toContain('nope');
		fake.on('POST', '/web-scrapper/map', { status: 403, body: { error: 'E004: API key lacks permission for this API', details: ["this API needs a key with the 'scrape' scope; this key has 'parse'"] } });
		const refused = (await run({ resource: 'website', operation: 'map', url: 'https://docs.example.com/' }).result.catch((e: unknown) => e)) as Error;
		expect(refused.message).toBe("The Gleaner API key lacks the 'scrape' scope, which the Website operations needs");
	});

	it('maps a site and outputs one item per URL, with its title where known', async () => {
		fake.on('POST', '/web-scrapper/map', { status: 200, body: { request_id: 'map-1', status: 'completed', url: 'https://docs.example.com/', tags: ['n8n-workflow:wf-test'], links: [{ url: 'https://docs.example.com/', title: 'Docs' }, { url: 'https://docs.example.com/guide' }] } });
		const [items] = await run({ resource: 'website', operation: 'map', url: 'https://docs.example.com/', mapOptions: { excludePaths: '/archive/', ignoreQuery: true } }).result;
		expect(items.map((i) => i.json)).toEqual([
			{ request_id: 'map-1', url: 'https://docs.example.com/', title: 'Docs', tags: ['n8n-workflow:wf-test'] },
			{ request_id: 'map-1', url: 'https://docs.example.com/guide', tags: ['n8n-workflow:wf-test'] },
		]);
		expect(fake.requestsTo('POST', '/web-scrapper/map')[0].body).toEqual({ url: 'https://docs.example.com/', limit: 5000, exclude_paths: ['/archive/'], ignore_query: true, tags: ['n8n-workflow:wf-test'] });
	});
});
