import type { INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import { GleanerApiError, GleanerJobFailedError, GleanerProtocolError } from '@gleaner/client/core';

/**
 * The error n8n shows for a failed Gleaner call: the service's "CODE: message" and HTTP status for
 * an error answer, the request's own error for one that failed while the node waited for it.
 * Anything else is the transport failing (service unreachable, connection reset).
 */
export function asNodeError(node: INode, error: unknown, itemIndex?: number): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	if (error instanceof GleanerApiError) {
		const details = 'details' in error.body && Array.isArray(error.body.details) ? error.body.details : [];
		return new NodeApiError(node, error.body as unknown as JsonObject, {
			message: error.body.error,
			description: details.length ? details.join('; ') : undefined,
			httpCode: String(error.status),
			itemIndex,
		});
	}
	if (error instanceof GleanerJobFailedError) {
		return new NodeApiError(node, error.record as JsonObject, {
			message: error.error,
			description: `Gleaner request ${error.requestId} failed${error.details.length ? `: ${error.details.join('; ')}` : ''}`,
			itemIndex,
		});
	}
	if (error instanceof GleanerProtocolError) {
		return new NodeApiError(node, { message: error.message }, { message: error.message, httpCode: String(error.status), itemIndex });
	}
	return new NodeApiError(node, error as JsonObject, { itemIndex });
}
