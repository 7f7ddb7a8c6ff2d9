import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { apiError, gleanerRequest } from '../shared/gleaner-request.js';
import { parseFamily, scrapeFamily, type Family } from './families.js';
import { parseRequestBody, scrapeRequestBody } from './request-bodies.js';
import { waitForResult, type WaitBudget } from './wait-for-result.js';

/** Runs the resource/operation chosen for item `i` and returns the service's answer. */
export async function runOperation(ctx: IExecuteFunctions, i: number): Promise<IDataObject> {
	const resource = ctx.getNodeParameter('resource', i) as string;
	const operation = ctx.getNodeParameter('operation', i) as string;
	const family = resource === 'document' ? parseFamily : scrapeFamily;

	if (operation === 'getStatus') return await getStatus(ctx, family, i);
	if (resource === 'webPage' && operation === 'scrape') return await submit(ctx, family, scrapeRequestBody(ctx, i), i);
	if (resource === 'document' && operation === 'parse') return await submit(ctx, family, parseRequestBody(ctx, i), i);
	throw new NodeOperationError(ctx.getNode(), `Unsupported operation "${operation}" for resource "${resource}"`, {
		itemIndex: i,
	});
}

/** 200 is the result; 202 is followed on the status endpoint when the node is told to wait. */
async function submit(ctx: IExecuteFunctions, family: Family, body: IDataObject, i: number): Promise<IDataObject> {
	const response = await gleanerRequest(ctx, 'POST', family.submitPath, body);
	if (response.statusCode >= 400) throw apiError(ctx, response, i);
	if (response.statusCode !== 202 || !(ctx.getNodeParameter('waitForResult', i) as boolean)) return response.body;
	return await waitForResult(ctx, family, response.body, waitBudget(ctx, i), i);
}

/** A status read returns the record as it is, failed records included: that is what was asked. */
async function getStatus(ctx: IExecuteFunctions, family: Family, i: number): Promise<IDataObject> {
	const requestId = (ctx.getNodeParameter('requestId', i) as string).trim();
	if (!requestId) throw new NodeOperationError(ctx.getNode(), 'Request ID is empty', { itemIndex: i });
	const response = await gleanerRequest(ctx, 'GET', family.statusPath(requestId));
	if (response.statusCode >= 400) throw apiError(ctx, response, i);
	return response.body;
}

function waitBudget(ctx: IExecuteFunctions, i: number): WaitBudget {
	const maxWaitSeconds = ctx.getNodeParameter('maxWaitSeconds', i) as number;
	const pollIntervalSeconds = ctx.getNodeParameter('pollIntervalSeconds', i) as number;
	if (!(maxWaitSeconds > 0) || !(pollIntervalSeconds > 0)) {
		throw new NodeOperationError(ctx.getNode(), 'Max Wait and Poll Interval must be positive numbers of seconds', {
			itemIndex: i,
		});
	}
	return { maxWaitMs: maxWaitSeconds * 1000, pollIntervalMs: pollIntervalSeconds * 1000 };
}
