import type { IExecuteFunctions } from 'n8n-workflow';
import type { CrawlRequest, DocumentType, MapRequest, ParseFileOptions, ParseRequest, ScrapeRequest, SiteScope, UploadedDocument } from '@gleaner/client/core';

/**
 * The tag every request of this node carries, `n8n-workflow:<workflow id>`, so that a Gleaner
 * Trigger in the same workflow can ignore the requests its own workflow made (and not start
 * itself again), plus the tags the user adds.
 */
export function requestTags(ctx: IExecuteFunctions, i: number): string[] {
	const extra = (ctx.getNodeParameter('tags', i, '') as string)
		.split(',')
		.map((tag) => tag.trim())
		.filter(Boolean);
	const workflowId = ctx.getWorkflow().id;
	return [...(workflowId ? [workflowTag(workflowId)] : []), ...extra];
}

export const workflowTag = (workflowId: string): string => `n8n-workflow:${workflowId}`;

/** `POST /web-scrapper/` body from the node's parameters for item `i`. */
export function scrapeRequestBody(ctx: IExecuteFunctions, i: number): ScrapeRequest {
	const url = (ctx.getNodeParameter('url', i) as string).trim();
	// The service ignores every other field when use_cache is set; sending only the URL says so.
	if (ctx.getNodeParameter('useCache', i) as boolean) return { url, use_cache: true };

	const body: ScrapeRequest = { url, output_type: ctx.getNodeParameter('outputType', i) as ScrapeRequest['output_type'], tags: requestTags(ctx, i) };
	if ((ctx.getNodeParameter('mode', i) as string) === 'llm') {
		body.use_llm = true;
		body.prompt = ctx.getNodeParameter('prompt', i) as string;
		const llmKeyId = (ctx.getNodeParameter('llmKeyId', i, '') as string).trim();
		if (llmKeyId) body.llm_key_id = llmKeyId;
	}
	// 'auto' is the service's default: sent only when changed.
	const renderJs = ctx.getNodeParameter('renderJs', i, 'auto') as string;
	if (renderJs !== 'auto') body.render_js = renderJs === 'always';
	const loading = ctx.getNodeParameter('loadingOptions', i, {}) as { timeout?: number; waitFor?: number; waitForSelector?: string };
	if (loading.timeout) body.timeout = loading.timeout;
	if (loading.waitFor) body.wait_for = loading.waitFor;
	if (loading.waitForSelector?.trim()) body.wait_for_selector = loading.waitForSelector.trim();
	return body;
}

/** `POST /documents/parse` body from the node's parameters for item `i`. */
export function parseRequestBody(ctx: IExecuteFunctions, i: number): ParseRequest {
	return { url: (ctx.getNodeParameter('url', i) as string).trim(), ...parseFileOptions(ctx, i) };
}

/** The fields of a parse, whether the document is named by URL or uploaded. */
export function parseFileOptions(ctx: IExecuteFunctions, i: number): ParseFileOptions {
	return {
		type: ctx.getNodeParameter('documentType', i) as DocumentType,
		output: ctx.getNodeParameter('documentOutput', i) as ParseRequest['output'],
		tags: requestTags(ctx, i),
	};
}

/** The input item's binary property as the document to upload (n8n keeps it in memory or its binary store). */
export async function uploadedDocument(ctx: IExecuteFunctions, i: number): Promise<UploadedDocument> {
	const property = (ctx.getNodeParameter('binaryPropertyName', i) as string).trim();
	const binary = ctx.helpers.assertBinaryData(i, property);
	const data = await ctx.helpers.getBinaryDataBuffer(i, property);
	const extension = binary.fileExtension ? `.${binary.fileExtension}` : '';
	return { name: binary.fileName ?? `document${extension}`, data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) };
}

interface ScopeOptions {
	includePaths?: string;
	excludePaths?: string;
	allowSubdomains?: boolean;
	sitemap?: SiteScope['sitemap'];
	ignoreQuery?: boolean;
}

/** Patterns given one per line. */
function patterns(text: string | undefined): string[] {
	return (text ?? '')
		.split('\n')
		.map((line) => line.trim())
		.filter(Boolean);
}

/** The scope fields of a crawl or map, those set only. */
function siteScope(options: ScopeOptions): SiteScope {
	const scope: SiteScope = {};
	const include = patterns(options.includePaths);
	const exclude = patterns(options.excludePaths);
	if (include.length) scope.include_paths = include;
	if (exclude.length) scope.exclude_paths = exclude;
	if (options.allowSubdomains) scope.allow_subdomains = true;
	if (options.sitemap && options.sitemap !== 'include') scope.sitemap = options.sitemap;
	if (options.ignoreQuery) scope.ignore_query = true;
	return scope;
}

/** `POST /web-scrapper/crawl` body from the node's parameters for item `i`. */
export function crawlRequestBody(ctx: IExecuteFunctions, i: number): CrawlRequest {
	const options = ctx.getNodeParameter('crawlOptions', i, {}) as ScopeOptions & { renderJs?: string; maxConcurrency?: number; maxDepth?: number; timeout?: number };
	const body: CrawlRequest = {
		url: (ctx.getNodeParameter('url', i) as string).trim(),
		limit: ctx.getNodeParameter('maxPages', i) as number,
		output_type: ctx.getNodeParameter('outputType', i) as CrawlRequest['output_type'],
		...siteScope(options),
		tags: requestTags(ctx, i),
	};
	if (options.maxDepth !== undefined) body.max_depth = options.maxDepth;
	if (options.maxConcurrency !== undefined) body.max_concurrency = options.maxConcurrency;
	if (options.timeout) body.timeout = options.timeout;
	if (options.renderJs && options.renderJs !== 'auto') body.render_js = options.renderJs === 'always';
	return body;
}

/** `POST /web-scrapper/map` body from the node's parameters for item `i`. */
export function mapRequestBody(ctx: IExecuteFunctions, i: number): MapRequest {
	return {
		url: (ctx.getNodeParameter('url', i) as string).trim(),
		limit: ctx.getNodeParameter('maxUrls', i) as number,
		...siteScope(ctx.getNodeParameter('mapOptions', i, {}) as ScopeOptions),
		tags: requestTags(ctx, i),
	};
}
