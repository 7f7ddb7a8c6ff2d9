import type { IDataObject, IExecuteFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';
import { apiError, gleanerRequest, retryAfterSeconds, type GleanerResponse } from '../shared/gleaner-request.js';
import type { Family } from './families.js';

export interface WaitBudget {
	maxWaitMs: number;
	pollIntervalMs: number;
}

/** Marks an answer returned because the wait budget ran out while the request was still running. */
export const TIMED_OUT_FLAG = 'wait_timed_out';

/**
 * Follows a request the service accepted with 202 on its status endpoint until it completes or
 * fails, or until the budget is spent. The last poll happens at the deadline, so a request that
 * finishes just inside the budget is not reported as still running.
 *
 * A failed request becomes an error, as it would have been had it failed inside the service's own
 * 20 s window; a budget that runs out returns the latest processing answer flagged `wait_timed_out`
 * so the workflow can carry on (for example into a "Get Status" later).
 */
export async function waitForResult(
	ctx: IExecuteFunctions,
	family: Family,
	accepted: IDataObject,
	budget: WaitBudget,
	itemIndex: number,
): Promise<IDataObject> {
	const requestId = family.requestIdOf(accepted);
	if (!requestId) {
		throw new NodeOperationError(ctx.getNode(), 'Gleaner accepted the request but named no request ID to follow', {
			itemIndex,
		});
	}
	const deadline = Date.now() + budget.maxWaitMs;
	let latest = accepted;
	let delayMs = budget.pollIntervalMs;
	for (;;) {
		const remaining = deadline - Date.now();
		if (remaining <= 0) return { ...latest, [TIMED_OUT_FLAG]: true };
		await sleep(Math.min(delayMs, remaining));
		delayMs = budget.pollIntervalMs;

		const response = await gleanerRequest(ctx, 'GET', family.statusPath(requestId));
		const backOff = transientDelayMs(response);
		if (backOff !== undefined) {
			delayMs = Math.max(backOff, budget.pollIntervalMs);
			continue;
		}
		if (response.statusCode >= 400) throw apiError(ctx, response, itemIndex);

		latest = response.body;
		if (!family.isFinished(latest)) continue;
		const failure = family.failureOf(latest);
		if (failure) {
			throw new NodeApiError(ctx.getNode(), latest as JsonObject, {
				message: failure,
				description: `Gleaner request ${requestId} failed`,
				itemIndex,
			});
		}
		return latest;
	}
}

/**
 * Rate limiting (429) and a briefly unavailable store (503, or 500 with Retry-After in the parser's
 * format) are worth waiting out while the budget lasts; the request itself is unaffected.
 */
function transientDelayMs(response: GleanerResponse): number | undefined {
	const retryAfter = retryAfterSeconds(response);
	if (response.statusCode === 429 || response.statusCode === 503) return (retryAfter ?? 0) * 1000;
	if (response.statusCode >= 500 && retryAfter !== undefined) return retryAfter * 1000;
	return undefined;
}
