import type { IDataObject, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import { GleanerApiError, GleanerJobFailedError, GleanerProtocolError } from '@gleaner/client/core';

/**
 * The error n8n shows for a failed Gleaner call: the service's "CODE: message" and HTTP status for
 * an error answer, the request's own error for one that failed while the node waited for it.
 * Anything else is the transport failing (service unreachable, connection reset).
 */
export function asNodeError(node: INode, error: unknown, itemIndex?: number): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	if (error instanceof GleanerApiError || error instanceof GleanerJobFailedError) {
		const failure = failureOf(error);
		const nodeError = new NodeApiError(node, (error instanceof GleanerApiError ? error.body : error.record) as JsonObject, {
			message: failure.error,
			description: describe(failure),
			...(failure.http_status ? { httpCode: String(failure.http_status) } : {}),
			itemIndex,
		});
		// Kept whole for Continue On Fail (errorItem): n8n's error keeps only a message and a description.
		nodeError.context[FAILURE_KEY] = failure;
		return nodeError;
	}
	if (error instanceof GleanerProtocolError) {
		return new NodeApiError(node, { message: error.message }, { message: error.message, httpCode: String(error.status), itemIndex });
	}
	return new NodeApiError(node, error as JsonObject, { itemIndex });
}

/** Everything Gleaner said about a failed request: what Continue On Fail outputs, and what the error shows. */
export interface GleanerFailure extends IDataObject {
	/** "CODE: message". */
	error: string;
	details: string[];
	request_id: string | null;
	http_status: number | null;
}

export function failureOf(error: GleanerApiError | GleanerJobFailedError): GleanerFailure {
	if (error instanceof GleanerJobFailedError) {
		return { error: error.error, details: error.details, request_id: error.requestId, http_status: null };
	}
	const body = error.body as { error: string; details?: unknown; requestId?: unknown; request_id?: unknown };
	const requestId = typeof body.requestId === 'string' ? body.requestId : typeof body.request_id === 'string' ? body.request_id : error.requestId;
	return {
		error: body.error,
		details: Array.isArray(body.details) ? body.details.map(String) : [],
		request_id: requestId,
		http_status: error.status,
	};
}

/** The details, then the request id: "document download failed: target answered HTTP 404 (request 0192…)". */
function describe(failure: GleanerFailure): string | undefined {
	const parts = [...failure.details, ...(failure.request_id ? [`Gleaner request ID: ${failure.request_id}`] : [])];
	return parts.length ? parts.join('; ') : undefined;
}

const FAILURE_KEY = 'gleanerFailure';

/**
 * The item Continue On Fail (or the error output) carries for a failed item: the whole failure
 * (code and message, details, request id, HTTP status), not only its first line.
 */
export function errorItem(nodeError: NodeApiError | NodeOperationError): IDataObject {
	const failure = nodeError.context[FAILURE_KEY] as GleanerFailure | undefined;
	if (failure) return { ...failure };
	return { error: nodeError.message, ...(nodeError.description ? { description: nodeError.description } : {}) };
}
