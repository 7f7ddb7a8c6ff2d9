import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestMethods,
	IN8nHttpFullResponse,
	IWebhookFunctions,
} from 'n8n-workflow';
import { sleep } from 'n8n-workflow';
import { GleanerCore, type GleanerHttpResponse } from '@gleaner/client/core';
import { asNodeError } from './node-error.js';

export const CREDENTIAL_NAME = 'gleanerApi';

type GleanerContext = IExecuteFunctions | IHookFunctions | IWebhookFunctions;

interface GleanerCredentials {
	baseUrl: string;
}

/**
 * The Gleaner client (`@gleaner/client/core`, bundled into dist by the build: a community node has
 * no runtime dependencies) over n8n's own HTTP helper, which adds the credential's `x-api-key`
 * header, and n8n's `sleep` for polling. Every status comes back to the client as a response; it
 * raises the service's error body (with its "E002: …" / "404-001: …" code) as GleanerApiError.
 */
export async function gleanerClient(ctx: GleanerContext): Promise<GleanerCore> {
	const { baseUrl } = await ctx.getCredentials<GleanerCredentials>(CREDENTIAL_NAME);
	const base = baseUrl.replace(/\/+$/, '');
	return new GleanerCore({
		sleep,
		send: async ({ method, path, body }): Promise<GleanerHttpResponse> => {
			const response = (await ctx.helpers.httpRequestWithAuthentication.call(ctx, CREDENTIAL_NAME, {
				method: method as IHttpRequestMethods,
				url: base + path,
				...(body ? { body: body as IDataObject } : {}),
				json: true,
				returnFullResponse: true,
				ignoreHttpStatusErrors: true,
			})) as IN8nHttpFullResponse;
			return { status: response.statusCode, headers: headerValues(response.headers), body: response.body };
		},
	});
}

/** One Gleaner call whose failure becomes the node error n8n shows (the service's own code and message). */
export async function withGleaner<T>(
	ctx: GleanerContext,
	call: (gleaner: GleanerCore) => Promise<T>,
	itemIndex?: number,
): Promise<T> {
	try {
		return await call(await gleanerClient(ctx));
	} catch (error) {
		throw asNodeError(ctx.getNode(), error, itemIndex);
	}
}

function headerValues(headers: IDataObject | undefined): Record<string, string | undefined> {
	const values: Record<string, string | undefined> = {};
	for (const [name, value] of Object.entries(headers ?? {})) {
		if (value === undefined || value === null) continue;
		values[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
	}
	return values;
}
