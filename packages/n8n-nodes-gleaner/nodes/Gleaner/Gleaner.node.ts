import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import { CREDENTIAL_NAME } from '../shared/gleaner-api.js';
import { asNodeError } from '../shared/node-error.js';
import { runOperation } from './operations.js';
import { documentFields, documentOperations } from './properties/document.js';
import { waitFields } from './properties/wait.js';
import { webPageFields, webPageOperations } from './properties/web-page.js';

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
		description: 'Turn web pages and documents into clean text with Gleaner',
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
				],
				default: 'webPage',
			},
			...webPageOperations,
			...documentOperations,
			...webPageFields,
			...documentFields,
			...waitFields,
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const returnData: INodeExecutionData[] = [];
		for (let i = 0; i < items.length; i++) {
			try {
				returnData.push({ json: await runOperation(this, i), pairedItem: { item: i } });
			} catch (error) {
				const nodeError = asNodeError(this.getNode(), error, i);
				if (!this.continueOnFail()) throw nodeError;
				returnData.push({ json: { error: nodeError.message }, pairedItem: { item: i } });
			}
		}
		return [returnData];
	}
}
