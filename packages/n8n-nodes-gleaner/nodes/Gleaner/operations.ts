import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { asCompletedStatus, GleanerApiError, GleanerTimeoutError, type CrawlPage, type CrawlStatus, type GleanerCore, type ScrapeSubmitResponse, type WaitOptions } from '@gleaner/client/core';
import { gleanerClient } from '../shared/gleaner-api.js';
import { asNodeError, type NeededScope } from '../shared/node-error.js';
import { crawlRequestBody, mapRequestBody, parseFileOptions, parseRequestBody, scrapeRequestBody, uploadedDocument } from './request-bodies.js';

/** Marks an answer returned because the wait budget ran out while the request was still running. */
export const TIMED_OUT_FLAG = 'wait_timed_out';

/**
 * Runs the resource/operation chosen for item `i` and returns the service's answer, in one shape
 * however it came: a scrape's in the status endpoint's shape (`content: {text, markdown, meta,
 * links, images}`) whether it finished inside the service's 20 s window, was followed after a
 * 202, or came from the cache; a parse's as its status record (the service answers a parse done
 * inside the window with it too); `tags` always, empty when the request had none — the shape the
 * Gleaner Trigger delivers too. Errors are the client's (GleanerApiError, GleanerJobFailedError);
 * the node's execute() turns them into n8n errors.
 */
export async function runOperation(ctx: IExecuteFunctions, i: number): Promise<IDataObject | IDataObject[]> {
	const resource = ctx.getNodeParameter('resource', i) as string;
	const operation = ctx.getNodeParameter('operation', i) as string;
	const gleaner = await gleanerClient(ctx);
	if (resource === 'website') return runWebsiteOperation(ctx, i, gleaner, operation);

	if (resource === 'webPage' && operation === 'scrape') {
		const answer = await gleaner.scrape(scrapeRequestBody(ctx, i));
		if (answer.status !== 'processing') return withTags(asCompletedStatus(answer as Exclude<ScrapeSubmitResponse, { status: 'processing' }>));
		if (!shouldWait(ctx, i)) return withTags(answer);
		return await untilDone(ctx, i, () => gleaner.followScrape(answer.request_id, waitOptions(ctx, i), answer));
	}
	if (resource === 'document' && operation === 'parse') {
		const answer =
			ctx.getNodeParameter('source', i, 'url') === 'binary'
				? await gleaner.parseFile(await uploadedDocument(ctx, i), parseFileOptions(ctx, i))
				: await gleaner.parse(parseRequestBody(ctx, i));
		if (answer.status !== 'PROCESSING' || !shouldWait(ctx, i)) return withTags(answer);
		return await untilDone(ctx, i, () => gleaner.followParse(answer.requestId, waitOptions(ctx, i), answer));
	}
	// A status read returns the record as it is, failed records included: that is what was asked.
	if (operation === 'getStatus') {
		const requestId = requestIdOf(ctx, i);
		try {
			return withTags(await readStatus(gleaner, resource, requestId));
		} catch (error) {
			// An unknown id is reported with that id, not with the id of the lookup that failed.
			throw asNodeError(ctx.getNode(), error, { itemIndex: i, needed: neededScope(ctx, i), ...(error instanceof GleanerApiError ? { requestId } : {}) });
		}
	}
	throw new NodeOperationError(ctx.getNode(), `Unsupported operation "${operation}" for resource "${resource}"`, {
		itemIndex: i,
	});
}

/**
 * The Website operations. A crawl followed to its end and Get Crawl output one item per listed
 * result (the pages read, or every result), each `{request_id, url, status, depth?, content |
 * error | reason, tags}`: a page in the same shape as a scrape's `content`. Start only, Cancel
 * Crawl and Get Crawl's state output the crawl's state; Map outputs one item per URL.
 */
async function runWebsiteOperation(ctx: IExecuteFunctions, i: number, gleaner: GleanerCore, operation: string): Promise<IDataObject | IDataObject[]> {
	if (operation === 'crawl') {
		const accepted = await gleaner.crawl(crawlRequestBody(ctx, i));
		if (!shouldWait(ctx, i)) return withTags(accepted);
		const pages: IDataObject[] = [];
		try {
			const ended = await gleaner.followCrawl(accepted.request_id, { ...waitOptions(ctx, i), onPage: (page) => void pages.push(...pageItems(ctx, i, accepted.request_id, [page])) });
			return pagesWithTags(pages, ended);
		} catch (error) {
			if (error instanceof GleanerTimeoutError) return { ...withTags(error.latest), [TIMED_OUT_FLAG]: true };
			throw asNodeError(ctx.getNode(), error, { itemIndex: i, needed: neededScope(ctx, i) });
		}
	}
	if (operation === 'map') {
		try {
			const mapped = await gleaner.mapAndWait(mapRequestBody(ctx, i), { timeoutMs: MAP_WAIT_MS, pollMs: MAP_POLL_MS });
			return (mapped.links ?? []).map((link) => ({ request_id: mapped.request_id, ...link, tags: mapped.tags ?? [] }));
		} catch (error) {
			if (error instanceof GleanerTimeoutError) return { ...withTags(error.latest), [TIMED_OUT_FLAG]: true };
			throw asNodeError(ctx.getNode(), error, { itemIndex: i, needed: neededScope(ctx, i) });
		}
	}
	const requestId = requestIdOf(ctx, i);
	try {
		if (operation === 'cancelCrawl') return withTags(await gleaner.cancelCrawl(requestId));
		if (operation === 'getCrawl') {
			if (ctx.getNodeParameter('crawlOutput', i) === 'state') return withTags(await gleaner.getCrawl(requestId, '0', 'crawl', 0));
			const pages: IDataObject[] = [];
			let latest: CrawlStatus;
			// Every result listed so far, read through the cursor.
			for (let cursor: string | null = '0'; ; cursor = latest.next) {
				latest = await gleaner.getCrawl(requestId, cursor);
				pages.push(...pageItems(ctx, i, requestId, latest.pages));
				if (latest.next === null || latest.pages.length === 0) break;
			}
			return pagesWithTags(pages, latest);
		}
	} catch (error) {
		throw asNodeError(ctx.getNode(), error, { itemIndex: i, needed: neededScope(ctx, i), ...(error instanceof GleanerApiError ? { requestId } : {}) });
	}
	throw new NodeOperationError(ctx.getNode(), `Unsupported operation "${operation}" for resource "website"`, { itemIndex: i });
}

/** A map is bounded by the service (its deadline, then the 20 s window): this only guards against a stuck one. */
const MAP_WAIT_MS = 5 * 60_000;
const MAP_POLL_MS = 2_000;

/** The results to output as items (the pages read, or all), each naming its crawl. */
function pageItems(ctx: IExecuteFunctions, i: number, requestId: string, pages: CrawlPage[]): IDataObject[] {
	const all = ctx.getNodeParameter('resultsToOutput', i, 'completed') === 'all';
	return pages.filter((page) => all || page.status === 'completed').map((page) => ({ request_id: requestId, ...page }) as IDataObject);
}

/** The items with the crawl's tags (known once its status is read). */
function pagesWithTags(pages: IDataObject[], crawl: CrawlStatus): IDataObject[] {
	return pages.map((page) => ({ ...page, tags: crawl.tags ?? [] }));
}

function readStatus(gleaner: GleanerCore, resource: string, requestId: string): Promise<object> {
	return resource === 'document' ? gleaner.getParse(requestId) : gleaner.getScrape(requestId);
}

/**
 * A budget that runs out returns the latest processing answer flagged `wait_timed_out`, so the
 * workflow can carry on (for example into a "Get Status" later); a failed request stays an error,
 * as it would have been had it failed inside the service's own 20 s window.
 */
async function untilDone(ctx: IExecuteFunctions, i: number, follow: () => Promise<object>): Promise<IDataObject> {
	try {
		return withTags(await follow());
	} catch (error) {
		if (error instanceof GleanerTimeoutError) return { ...withTags(error.latest), [TIMED_OUT_FLAG]: true };
		throw asNodeError(ctx.getNode(), error, { itemIndex: i, needed: neededScope(ctx, i) });
	}
}

/** The scope item `i`'s operation needs, named when the key lacks it. */
export function neededScope(ctx: IExecuteFunctions, i: number): NeededScope {
	const resource = ctx.getNodeParameter('resource', i);
	if (resource === 'document') return { scope: 'parse', by: 'the Document operations' };
	return { scope: 'scrape', by: resource === 'website' ? 'the Website operations' : 'the Web Page operations' };
}

function requestIdOf(ctx: IExecuteFunctions, i: number): string {
	const requestId = (ctx.getNodeParameter('requestId', i) as string).trim();
	if (!requestId) throw new NodeOperationError(ctx.getNode(), 'Request ID is empty', { itemIndex: i });
	return requestId;
}

function shouldWait(ctx: IExecuteFunctions, i: number): boolean {
	return ctx.getNodeParameter('waitForResult', i) as boolean;
}

function waitOptions(ctx: IExecuteFunctions, i: number): Pick<WaitOptions<never>, 'timeoutMs' | 'pollMs'> {
	const maxWaitSeconds = ctx.getNodeParameter('maxWaitSeconds', i) as number;
	const pollIntervalSeconds = ctx.getNodeParameter('pollIntervalSeconds', i) as number;
	if (!(maxWaitSeconds > 0) || !(pollIntervalSeconds > 0)) {
		throw new NodeOperationError(ctx.getNode(), 'Max Wait and Poll Interval must be positive numbers of seconds', {
			itemIndex: i,
		});
	}
	return { timeoutMs: maxWaitSeconds * 1000, pollMs: pollIntervalSeconds * 1000 };
}

/**
 * The API's JSON answer as an n8n item's json, with `tags` always there (the API leaves it out
 * when a request had none), so that `{{$json.tags}}` works on every item.
 */
export function withTags(answer: object): IDataObject {
	const json = answer as IDataObject;
	return Array.isArray(json.tags) ? json : { ...json, tags: [] };
}
