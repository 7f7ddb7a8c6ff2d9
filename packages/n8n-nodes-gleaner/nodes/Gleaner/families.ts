import type { IDataObject } from 'n8n-workflow';

/**
 * What differs between the two asynchronous API families the node drives. They answer a submit
 * with 200 (done inside the service's 20 s window) or 202 (still working), and are followed on a
 * status endpoint, but name their ids and states differently.
 */
export interface Family {
	submitPath: string;
	statusPath(requestId: string): string;
	/** The id in a submit answer or status record. */
	requestIdOf(answer: IDataObject): string | undefined;
	/** Completed or failed: polling stops. */
	isFinished(record: IDataObject): boolean;
	/** The record's "CODE: message" when the request failed. */
	failureOf(record: IDataObject): string | undefined;
}

export const scrapeFamily: Family = {
	submitPath: '/web-scrapper/',
	statusPath: (requestId) => `/web-scrapper/${encodeURIComponent(requestId)}`,
	requestIdOf: (answer) => stringOrUndefined(answer.request_id),
	isFinished: (record) => record.status === 'completed' || record.status === 'failed',
	failureOf: (record) =>
		record.status === 'failed' ? (stringOrUndefined(record.error) ?? 'E008: processing failed') : undefined,
};

export const parseFamily: Family = {
	submitPath: '/documents/parse',
	statusPath: (requestId) => `/documents/status/${encodeURIComponent(requestId)}`,
	requestIdOf: (answer) => stringOrUndefined(answer.requestId),
	isFinished: (record) => record.status === 'COMPLETED' || record.status === 'FAILED',
	failureOf: (record) =>
		record.status === 'FAILED' ? (stringOrUndefined(record.error) ?? '500-001: processing failed') : undefined,
};

function stringOrUndefined(value: unknown): string | undefined {
	return typeof value === 'string' && value !== '' ? value : undefined;
}
