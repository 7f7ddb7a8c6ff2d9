import type { IDataObject, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import { GleanerApiError, GleanerJobFailedError, GleanerProtocolError } from '@gleaner/client/core';

/** A Gleaner API scope, and what in this package needs it: named when a key lacks it. */
export interface NeededScope {
	scope: 'scrape' | 'parse' | 'account';
	/** "Web Page operations", "the LLM Key list", "the Gleaner Trigger …". */
	by: string;
}

export interface ErrorContext {
	itemIndex?: number;
	/** The scope the call needed: a 403 then says which one the key lacks. */
	needed?: NeededScope;
	/** The request the item is about (a status read's), rather than the id of the call that failed. */
	requestId?: string;
}

/** Gleaner could not be reached at all (connection refused, unknown host, …), with the URL tried. */
export class GleanerUnreachableError extends Error {
	constructor(
		readonly baseUrl: string,
		readonly code: string,
	) {
		// No error code in the message: n8n would replace a message naming one with its own generic text.
		super(`Could not reach Gleaner at ${baseUrl}`);
		this.name = 'GleanerUnreachableError';
	}
}

/** Errors of the connection itself, as Node and axios name them, and what each means. */
const CONNECTION_FAILURES: Record<string, string> = {
	ECONNREFUSED: 'nothing accepts connections at that address',
	ENOTFOUND: 'that host name does not resolve',
	EAI_AGAIN: 'that host name could not be resolved just now',
	ETIMEDOUT: 'the connection timed out',
	ECONNRESET: 'the connection was reset',
	EHOSTUNREACH: 'that host cannot be reached',
	ENETUNREACH: 'that network cannot be reached',
	ECONNABORTED: 'the connection was aborted',
	EPIPE: 'the connection was closed',
};

/**
 * The connection error code of what n8n's HTTP helper threw (an axios error, or an n8n error
 * wrapping one, or fetch's TypeError whose cause has it), or null for anything else.
 */
export function connectionErrorCode(error: unknown): string | null {
	for (let e: unknown = error, depth = 0; e && typeof e === 'object' && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
		const code = (e as { code?: unknown }).code;
		if (typeof code === 'string' && code in CONNECTION_FAILURES) return code;
	}
	return null;
}

/** The message of a 403 for a key without the scope a call needs, and what to do about it. */
export function missingScope(needed: NeededScope, answered: { error: string; details?: unknown }): { message: string; description: string } {
	const details = Array.isArray(answered.details) && answered.details.length ? ` (${answered.details.map(String).join('; ')})` : '';
	return {
		message: `The Gleaner API key lacks the '${needed.scope}' scope, which ${needed.by} needs`,
		description: `Gleaner answered: ${answered.error}${details}. Create a key with that scope (gleaner keys create --account <name> --scopes scrape,parse,account) and use it in this credential.`,
	};
}

/**
 * The error n8n shows for a failed Gleaner call: the service's "CODE: message" and HTTP status for
 * an error answer (a 403 naming the scope the key lacks), the request's own error for one that
 * failed while the node waited for it, and the URL tried when Gleaner could not be reached.
 * Anything else is passed on as n8n describes it.
 */
export function asNodeError(node: INode, error: unknown, context: ErrorContext = {}): NodeApiError | NodeOperationError {
	const { itemIndex } = context;
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	if (error instanceof GleanerApiError || error instanceof GleanerJobFailedError) {
		const failure = failureOf(error, context.requestId);
		const scoped = error instanceof GleanerApiError && error.status === 403 && context.needed ? missingScope(context.needed, error.body) : null;
		const nodeError = new NodeApiError(node, (error instanceof GleanerApiError ? error.body : error.record) as JsonObject, {
			message: scoped?.message ?? failure.error,
			description: scoped?.description ?? describe(failure),
			...(failure.http_status ? { httpCode: String(failure.http_status) } : {}),
			itemIndex,
		});
		// Kept whole for Continue On Fail (errorItem): n8n's error keeps only a message and a description.
		nodeError.context[FAILURE_KEY] = failure;
		return nodeError;
	}
	if (error instanceof GleanerUnreachableError) {
		// A plain object without the code, so n8n does not replace the message with its generic one.
		return new NodeApiError(node, { message: error.message }, {
			message: error.message,
			description: `${error.code}: ${CONNECTION_FAILURES[error.code] ?? 'the connection failed'}. Is the Gleaner gateway running there, and is the Base URL of the Gleaner API credential right?`,
			itemIndex,
		});
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

export function failureOf(error: GleanerApiError | GleanerJobFailedError, askedRequestId?: string): GleanerFailure {
	if (error instanceof GleanerJobFailedError) {
		return { error: error.error, details: error.details, request_id: error.requestId, http_status: null };
	}
	const body = error.body as { error: string; details?: unknown; requestId?: unknown; request_id?: unknown };
	// A status read is about the id it asked for: the X-Request-ID of its answer names the lookup itself.
	const requestId = askedRequestId ?? (typeof body.requestId === 'string' ? body.requestId : typeof body.request_id === 'string' ? body.request_id : error.requestId);
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
