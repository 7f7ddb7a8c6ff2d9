import type { IDataObject, IHookFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';
import { apiError, gleanerRequest } from '../shared/gleaner-request.js';

/** An account-level webhook subscription (`/account/webhooks`). */
export interface Subscription {
	id: string;
	url: string;
	families: string[];
}

export async function listSubscriptions(ctx: IHookFunctions): Promise<Subscription[]> {
	const response = await gleanerRequest(ctx, 'GET', '/account/webhooks');
	if (response.statusCode >= 400) throw apiError(ctx, response);
	const { webhooks } = response.body;
	return Array.isArray(webhooks) ? webhooks.filter(isSubscription) : [];
}

export async function subscribe(ctx: IHookFunctions, url: string, families: string[]): Promise<Subscription> {
	const response = await gleanerRequest(ctx, 'POST', '/account/webhooks', { url, families });
	if (response.statusCode >= 400) throw apiError(ctx, response);
	if (!isSubscription(response.body)) {
		throw new NodeApiError(ctx.getNode(), response.body as JsonObject, {
			message: 'Gleaner created the subscription but its answer names no subscription ID',
		});
	}
	return response.body;
}

/** `missing` when the service no longer has it (removed by hand, or the account was reset). */
export async function unsubscribe(ctx: IHookFunctions, id: string): Promise<'deleted' | 'missing'> {
	const response = await gleanerRequest(ctx, 'DELETE', `/account/webhooks/${encodeURIComponent(id)}`);
	if (response.statusCode === 404) return 'missing';
	if (response.statusCode >= 400) throw apiError(ctx, response);
	return 'deleted';
}

export function sameFamilies(a: string[], b: string[]): boolean {
	const left = new Set(a);
	const right = new Set(b);
	return left.size === right.size && [...left].every((family) => right.has(family));
}

function isSubscription(value: unknown): value is Subscription {
	const candidate = value as IDataObject;
	return (
		typeof candidate === 'object' &&
		candidate !== null &&
		typeof candidate.id === 'string' &&
		typeof candidate.url === 'string' &&
		Array.isArray(candidate.families)
	);
}
