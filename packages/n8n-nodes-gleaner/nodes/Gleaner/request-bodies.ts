import type { IExecuteFunctions } from 'n8n-workflow';
import type { DocumentType, ParseRequest, ScrapeRequest } from '@gleaner/client/core';

/** `POST /web-scrapper/` body from the node's parameters for item `i`. */
export function scrapeRequestBody(ctx: IExecuteFunctions, i: number): ScrapeRequest {
	const url = (ctx.getNodeParameter('url', i) as string).trim();
	// The service ignores every other field when use_cache is set; sending only the URL says so.
	if (ctx.getNodeParameter('useCache', i) as boolean) return { url, use_cache: true };

	const body: ScrapeRequest = { url, output_type: ctx.getNodeParameter('outputType', i) as ScrapeRequest['output_type'] };
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
	return {
		url: (ctx.getNodeParameter('url', i) as string).trim(),
		type: ctx.getNodeParameter('documentType', i) as DocumentType,
		output: ctx.getNodeParameter('documentOutput', i) as ParseRequest['output'],
	};
}
