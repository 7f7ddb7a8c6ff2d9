import type { INodeProperties } from 'n8n-workflow';
import { OUTPUT_TYPES } from './web-page.js';

const show = (operation: string[], extra: Record<string, unknown[]> = {}) => ({ show: { resource: ['website'], operation, ...extra } });

export const websiteOperations: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['website'] } },
		options: [
			{
				name: 'Cancel Crawl',
				value: 'cancelCrawl',
				description: 'Stop a running crawl by its request ID, keeping the pages it read',
				action: 'Cancel a crawl',
			},
			{
				name: 'Crawl',
				value: 'crawl',
				description: 'Read the pages of a site from a start URL, following its links and sitemaps, each page as clean text or markdown',
				action: 'Crawl a website',
			},
			{
				name: 'Get Crawl',
				value: 'getCrawl',
				description: 'Read the pages or the state of an earlier crawl by its request ID',
				action: 'Get the results of a crawl',
			},
			{
				name: 'Map',
				value: 'map',
				description: "List a site's URLs (with titles where known) without reading the pages",
				action: 'Map a website',
			},
		],
		default: 'crawl',
	},
];

/** Which URLs a crawl or map follows (the API's scope fields), shown for both. */
const scopeOptions: INodeProperties['options'] = [
	{
		displayName: 'Allow Subdomains',
		name: 'allowSubdomains',
		type: 'boolean',
		default: false,
		description: 'Whether to also follow links to subdomains of the start host (the www and bare hosts are always one site)',
	},
	{
		displayName: 'Exclude Paths',
		name: 'excludePaths',
		type: 'string',
		typeOptions: { rows: 3 },
		default: '',
		placeholder: '/archive/\n\\.pdf$',
		description: 'Regular expressions, one per line: URLs whose path matches one are left out',
	},
	{
		displayName: 'Ignore Query',
		name: 'ignoreQuery',
		type: 'boolean',
		default: false,
		description: 'Whether URLs that differ only in their query string are one page',
	},
	{
		displayName: 'Include Paths',
		name: 'includePaths',
		type: 'string',
		typeOptions: { rows: 3 },
		default: '',
		placeholder: '^/docs/',
		description: 'Regular expressions, one per line: only URLs whose path matches one are followed (the start URL is always read)',
	},
	{
		displayName: 'Sitemap',
		name: 'sitemap',
		type: 'options',
		options: [
			{ name: 'Include', value: 'include', description: "Also take the URLs of the site's sitemaps" },
			{ name: 'Only', value: 'only', description: "Only the sitemaps' URLs, no links" },
			{ name: 'Skip', value: 'skip', description: 'Follow links only' },
		],
		default: 'include',
	},
];

export const websiteFields: INodeProperties[] = [
	{
		displayName: 'URL',
		name: 'url',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'https://docs.example.com/',
		description: 'The start page (http or https); its links are followed on the same site',
		displayOptions: show(['crawl', 'map']),
	},
	{
		displayName: 'Max Pages',
		name: 'maxPages',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 100,
		description: "Pages to read at most (the crawl's limit: never exceeded; the service caps it, 10,000 by default)",
		displayOptions: show(['crawl']),
	},
	{
		displayName: 'Max URLs',
		name: 'maxUrls',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 5000,
		description: "URLs to list at most (the map's limit)",
		displayOptions: show(['map']),
	},
	{
		displayName: 'Output Type',
		name: 'outputType',
		type: 'options',
		options: OUTPUT_TYPES,
		default: 'markdown',
		displayOptions: show(['crawl']),
	},
	{
		displayName: 'Wait for Crawl to End',
		name: 'waitForResult',
		type: 'boolean',
		default: true,
		description:
			'Whether to follow the crawl until it ends and output its pages as items (one per page), or to output at once the answer naming its request ID (read it later with Get Crawl)',
		displayOptions: show(['crawl']),
	},
	{
		displayName: 'Max Wait (Seconds)',
		name: 'maxWaitSeconds',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 1800,
		description:
			'How long to follow the crawl. When it runs out, the node outputs the crawl\'s state with wait_timed_out set to true (the crawl goes on: read its pages with Get Crawl).',
		displayOptions: show(['crawl'], { waitForResult: [true] }),
	},
	{
		displayName: 'Poll Interval (Seconds)',
		name: 'pollIntervalSeconds',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 5,
		description: "Time between two reads of the crawl's state and new pages. Each read counts against the API key's rate limit.",
		displayOptions: show(['crawl'], { waitForResult: [true] }),
	},
	{
		displayName: 'Request ID',
		name: 'requestId',
		type: 'string',
		required: true,
		default: '',
		description: 'The request_id a crawl answered with',
		displayOptions: show(['getCrawl', 'cancelCrawl']),
	},
	{
		displayName: 'Output',
		name: 'crawlOutput',
		type: 'options',
		options: [
			{ name: 'Pages as Items', value: 'pages', description: 'One item per page listed so far (all of them once the crawl has ended)' },
			{ name: 'Crawl State', value: 'state', description: 'One item: its status, why it ended, and its counts' },
		],
		default: 'pages',
		displayOptions: show(['getCrawl']),
	},
	{
		displayName: 'Results to Output',
		name: 'resultsToOutput',
		type: 'options',
		options: [
			{ name: 'Pages Read', value: 'completed', description: 'The pages the crawl read' },
			{ name: 'All Results', value: 'all', description: 'Also the URLs that failed (with their error) or were skipped (with why)' },
		],
		default: 'completed',
		displayOptions: { show: { resource: ['website'], operation: ['crawl', 'getCrawl'] }, hide: { crawlOutput: ['state'], waitForResult: [false] } },
	},
	{
		displayName: 'Crawl Options',
		name: 'crawlOptions',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: show(['crawl']),
		options: [
			...scopeOptions,
			{
				displayName: 'JavaScript Rendering',
				name: 'renderJs',
				type: 'options',
				options: [
					{ name: 'Always', value: 'always' },
					{ name: 'Auto', value: 'auto', description: 'Render only pages that look client-rendered' },
					{ name: 'Never', value: 'never' },
				],
				default: 'auto',
			},
			{
				displayName: 'Max Concurrency',
				name: 'maxConcurrency',
				type: 'number',
				typeOptions: { minValue: 1, maxValue: 20 },
				default: 5,
				description: 'Requests to one host at once (robots.txt Crawl-delay and the adaptive delay still apply)',
			},
			{
				displayName: 'Max Depth',
				name: 'maxDepth',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: 3,
				description: 'Link hops from the start page to follow at most (sitemap URLs count as 0)',
			},
			{
				displayName: 'Page Timeout (Ms)',
				name: 'timeout',
				type: 'number',
				typeOptions: { minValue: 1000, maxValue: 120000 },
				default: 30000,
				description: 'How long one page may take to load',
			},
		],
	},
	{
		displayName: 'Map Options',
		name: 'mapOptions',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: show(['map']),
		options: scopeOptions,
	},
];
