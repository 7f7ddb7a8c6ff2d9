import type { INodeProperties } from 'n8n-workflow';

const show = (operation: string[]) => ({ show: { resource: ['webPage'], operation } });
/** Shown only when Use Cache is off: a cached lookup ignores every field but the URL. */
const scraping = (extra: Record<string, string[]> = {}) => ({ show: { resource: ['webPage'], operation: ['scrape'], useCache: [false], ...extra } });

/** A scrape's output, and each page's of a crawl. */
export const OUTPUT_TYPES: INodeProperties['options'] = [
	{ name: 'Markdown', value: 'markdown', description: 'Plain text (content.text) plus a markdown rendering (content.markdown)' },
	{ name: 'Plain Text', value: 'plaintext', description: 'Plain text only (content.text)' },
];

export const webPageOperations: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['webPage'] } },
		options: [
			{
				name: 'Get Status',
				value: 'getStatus',
				description: 'Read the state or result of an earlier scrape by its request ID',
				action: 'Get the status of a scrape',
			},
			{
				name: 'Scrape',
				value: 'scrape',
				description: 'Turn a web page into clean text or markdown, optionally extracting data with an LLM',
				action: 'Scrape a web page',
			},
		],
		default: 'scrape',
	},
];

export const webPageFields: INodeProperties[] = [
	{
		displayName: 'URL',
		name: 'url',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'https://example.com/article',
		description: 'The page to scrape (http or https)',
		displayOptions: show(['scrape']),
	},
	{
		displayName: 'Use Cache',
		name: 'useCache',
		type: 'boolean',
		default: false,
		description:
			'Whether to return the most recent result for this URL from the last 15 days instead of scraping again. The other fields are then hidden and not sent, and the node fails when there is no cached result.',
		displayOptions: show(['scrape']),
	},
	{
		displayName: 'Mode',
		name: 'mode',
		type: 'options',
		options: [
			{ name: 'Basic', value: 'basic', description: 'Text, metadata, links and images of the page' },
			{
				name: 'LLM',
				value: 'llm',
				description: 'Also run a prompt over the page with one of your registered language-model keys',
			},
		],
		default: 'basic',
		displayOptions: scraping(),
	},
	{
		displayName: 'Output Type',
		name: 'outputType',
		type: 'options',
		options: OUTPUT_TYPES,
		default: 'markdown',
		displayOptions: scraping(),
	},
	{
		displayName: 'Prompt',
		name: 'prompt',
		type: 'string',
		typeOptions: { rows: 4 },
		required: true,
		default: '',
		placeholder: 'List the product name, price and availability',
		description: 'What the language model should extract from the page',
		displayOptions: scraping({ mode: ['llm'] }),
	},
	{
		displayName: 'LLM Key Name or ID',
		hint: "The list is the account's language-model keys (GET /account/llm-keys): it needs a key with the account scope",
		name: 'llmKeyId',
		type: 'options',
		typeOptions: { loadOptionsMethod: 'getLlmKeys' },
		default: '',
		description:
			'Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>',
		displayOptions: scraping({ mode: ['llm'] }),
	},
	{
		displayName: 'JavaScript Rendering',
		name: 'renderJs',
		type: 'options',
		options: [
			{ name: 'Always', value: 'always', description: 'Render every page in a headless browser before reading it' },
			{
				name: 'Auto',
				value: 'auto',
				description: 'Render only pages that look client-rendered (an app shell filled by script), or when a wait is set',
			},
			{ name: 'Never', value: 'never', description: 'Read the HTML as the server sends it' },
		],
		default: 'auto',
		description: 'Whether the page runs in a headless browser first; the result says so in meta.rendered',
		displayOptions: scraping(),
	},
	{
		displayName: 'Loading Options',
		name: 'loadingOptions',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: scraping(),
		options: [
			{
				displayName: 'Timeout (Ms)',
				name: 'timeout',
				type: 'number',
				typeOptions: { minValue: 1000, maxValue: 120000 },
				default: 30000,
				description: 'How long the page may take to load, static or rendered (at most 120000)',
			},
			{
				displayName: 'Wait For (Ms)',
				name: 'waitFor',
				type: 'number',
				typeOptions: { minValue: 0, maxValue: 30000 },
				default: 0,
				description: 'Rendering: how long to wait once the page has loaded, before reading it',
			},
			{
				displayName: 'Wait For Selector',
				name: 'waitForSelector',
				type: 'string',
				default: '',
				placeholder: '#content article',
				description: 'Rendering: a CSS selector the page must contain before it is read',
			},
		],
	},
	{
		displayName: 'Request ID',
		name: 'requestId',
		type: 'string',
		required: true,
		default: '',
		description: 'The request_id a scrape answered with',
		displayOptions: show(['getStatus']),
	},
];
