import type { IExecuteFunctions, ILoadOptionsFunctions, INodeExecutionData, INodePropertyOptions, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import { CREDENTIAL_NAME, withGleaner } from '../shared/gleaner-api.js';
import { asNodeError, errorItem } from '../shared/node-error.js';
import { neededScope, runOperation } from './operations.js';
import { documentFields, documentOperations } from './properties/document.js';
import { waitFields } from './properties/wait.js';
import { webPageFields, webPageOperations } from './properties/web-page.js';
import { websiteFields, websiteOperations } from './properties/website.js';

/**
 * Programmatic rather than declarative: a submit that answers 202 is followed on the status
 * endpoint within a time budget, which routing descriptions cannot express.
 */
export class Gleaner implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Gleaner',
		name: 'gleaner',
		icon: { light: 'file:../../icons/gleaner.svg', dark: 'file:../../icons/gleaner.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		description: 'Scrape web pages, crawl and map websites, and parse documents (PDF, Word, Excel, PowerPoint, OpenDocument, EPUB, HTML, images, text) into clean text or markdown with Gleaner',
		defaults: { name: 'Gleaner' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: CREDENTIAL_NAME, required: true }],
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Document', value: 'document' },
					{ name: 'Web Page', value: 'webPage' },
					{ name: 'Website', value: 'website' },
				],
				default: 'webPage',
			},
			...webPageOperations,
			...documentOperations,
			...websiteOperations,
			...webPageFields,
			...documentFields,
			...websiteFields,
			...waitFields,
		],
	};

	methods = {
		loadOptions: {
			/** The account's language-model keys for the LLM Key dropdown (GET /account/llm-keys, scope account). */
			async getLlmKeys(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
				const keys = await withGleaner(this, (gleaner) => gleaner.listLlmKeys(), { needed: { scope: 'account', by: 'the LLM Key list' } });
				return [
					{ name: 'Most Recently Added Key', value: '', description: "Gleaner's default when no key is named" },
					...keys.map((key) => ({
						name: `${key.label ?? key.provider} (${[key.model, key.masked].filter(Boolean).join(', ')})`,
						value: key.id,
						description: `${key.provider} key ${key.id}`,
					})),
				];
			},
		},
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const returnData: INodeExecutionData[] = [];
		for (let i = 0; i < items.length; i++) {
			try {
				// One item per input item, or one per page of a crawl or URL of a map.
				const answer = await runOperation(this, i);
				for (const json of Array.isArray(answer) ? answer : [answer]) returnData.push({ json, pairedItem: { item: i } });
			} catch (error) {
				const nodeError = asNodeError(this.getNode(), error, { itemIndex: i, needed: neededScope(this, i) });
				if (!this.continueOnFail()) throw nodeError;
				returnData.push({ json: errorItem(nodeError), pairedItem: { item: i } });
			}
		}
		return [returnData];
	}
}
