import type { INodeProperties } from 'n8n-workflow';

const show = (operation: string[]) => ({ show: { resource: ['document'], operation } });

const DOCUMENT_TYPES: Array<{ name: string; value: string }> = [
	{ name: 'CSV', value: 'csv' },
	{ name: 'DOC', value: 'doc' },
	{ name: 'DOCX', value: 'docx' },
	{ name: 'EPUB', value: 'epub' },
	{ name: 'HEIC', value: 'heic' },
	{ name: 'HTML', value: 'html' },
	{ name: 'JPEG', value: 'jpeg' },
	{ name: 'JPG', value: 'jpg' },
	{ name: 'Markdown', value: 'md' },
	{ name: 'ODP', value: 'odp' },
	{ name: 'ODS', value: 'ods' },
	{ name: 'ODT', value: 'odt' },
	{ name: 'PDF', value: 'pdf' },
	{ name: 'PNG', value: 'png' },
	{ name: 'PPTX', value: 'pptx' },
	{ name: 'RTF', value: 'rtf' },
	{ name: 'TIF', value: 'tif' },
	{ name: 'TIFF', value: 'tiff' },
	{ name: 'TXT', value: 'txt' },
	{ name: 'XLS', value: 'xls' },
	{ name: 'XLSX', value: 'xlsx' },
];

export const documentOperations: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['document'] } },
		options: [
			{
				name: 'Get Status',
				value: 'getStatus',
				description: 'Read the state or result of an earlier parse by its request ID',
				action: 'Get the status of a document parse',
			},
			{
				name: 'Parse',
				value: 'parse',
				description: 'Turn a PDF, Word, Excel, PowerPoint, OpenDocument, EPUB, HTML, image (OCR) or text file into plain text or markdown',
				action: 'Parse a document',
			},
		],
		default: 'parse',
	},
];

export const documentFields: INodeProperties[] = [
	{
		displayName: 'Source',
		name: 'source',
		type: 'options',
		options: [
			{ name: 'URL', value: 'url', description: 'Gleaner downloads the document' },
			{
				name: 'Binary Data',
				value: 'binary',
				description: 'Upload a file held by the input item (from Read Binary File, HTTP Request, an email attachment…), at most 50 MB',
			},
		],
		default: 'url',
		displayOptions: show(['parse']),
	},
	{
		displayName: 'URL',
		name: 'url',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'https://example.com/report.pdf',
		description: 'Where Gleaner downloads the document from (http or https)',
		displayOptions: { show: { resource: ['document'], operation: ['parse'], source: ['url'] } },
	},
	{
		displayName: 'Input Binary Field',
		name: 'binaryPropertyName',
		type: 'string',
		required: true,
		default: 'data',
		hint: 'The name of the input binary field holding the document',
		description: 'The binary property of the input item to upload; its file name is sent too',
		displayOptions: { show: { resource: ['document'], operation: ['parse'], source: ['binary'] } },
	},
	{
		displayName: 'Type',
		name: 'documentType',
		type: 'options',
		options: DOCUMENT_TYPES,
		default: 'pdf',
		description: "The document's declared type; Gleaner detects the real kind from the file's bytes",
		displayOptions: show(['parse']),
	},
	{
		displayName: 'Output',
		name: 'documentOutput',
		type: 'options',
		options: [
			{ name: 'Markdown', value: 'markdown' },
			{ name: 'Plain Text', value: 'plain' },
		],
		default: 'plain',
		displayOptions: show(['parse']),
	},
	{
		displayName: 'Request ID',
		name: 'requestId',
		type: 'string',
		required: true,
		default: '',
		description: 'The requestId a parse answered with',
		displayOptions: show(['getStatus']),
	},
];
