import type { INodeProperties } from 'n8n-workflow';

/** Shown for the submitting operations: how long the node follows a request the service answered 202. */
const submitting = { resource: ['webPage', 'document'], operation: ['scrape', 'parse'] };
/** Every operation that starts a request takes tags (a crawl's wait has its own fields: see website.ts). */
const tagged = { resource: ['webPage', 'document', 'website'], operation: ['scrape', 'parse', 'crawl', 'map'] };

export const waitFields: INodeProperties[] = [
	{
		displayName: 'Request Tags',
		name: 'tags',
		type: 'string',
		default: '',
		placeholder: 'invoices, nightly',
		description:
			'Comma-separated labels for the request, echoed in its result and in Gleaner Trigger deliveries (a trigger can start only for a tag). Every request also carries n8n-workflow:&lt;workflow ID&gt;, which lets a Gleaner Trigger in this workflow ignore it.',
		displayOptions: { show: tagged, hide: { useCache: [true] } },
	},
	{
		displayName: 'Wait for Result',
		name: 'waitForResult',
		type: 'boolean',
		default: true,
		description:
			'Whether to keep polling when Gleaner answers that the request is still processing (it does after 20 seconds), so the node outputs the final result',
		displayOptions: { show: submitting },
	},
	{
		displayName: 'Max Wait (Seconds)',
		name: 'maxWaitSeconds',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 300,
		description:
			'How long to keep polling after the processing answer. When it runs out, the node outputs the processing answer with wait_timed_out set to true.',
		displayOptions: { show: { ...submitting, waitForResult: [true] } },
	},
	{
		displayName: 'Poll Interval (Seconds)',
		name: 'pollIntervalSeconds',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 5,
		description: 'Time between two reads of the status endpoint. Each read counts against the API key\'s rate limit.',
		displayOptions: { show: { ...submitting, waitForResult: [true] } },
	},
];
