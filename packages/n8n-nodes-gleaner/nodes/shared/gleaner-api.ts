import { randomBytes } from 'crypto';
import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IN8nHttpFullResponse,
	IWebhookFunctions,
} from 'n8n-workflow';
import { sleep } from 'n8n-workflow';
import { encodeMultipart, GleanerCore, type GleanerHttpResponse } from '@gleaner/client/core';
import { asNodeError, connectionErrorCode, GleanerUnreachableError, type ErrorContext } from './node-error.js';

export const CREDENTIAL_NAME = 'gleanerApi';

type GleanerContext = IExecuteFunctions | IHookFunctions | IWebhookFunctions | ILoadOptionsFunctions;

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
		send: async ({ method, path, body, form, headers }): Promise<GleanerHttpResponse> => {
			const request: IHttpRequestOptions = {
				method: method as IHttpRequestMethods,
				url: base + path,
				...(headers ? { headers } : {}),
				...(body ? { body: body as IDataObject } : {}),
				json: true,
				returnFullResponse: true,
				ignoreHttpStatusErrors: true,
			};
			if (form) {
				// An upload (document parse of binary data) is sent as a multipart body built here,
				// so its bytes go out as they are whatever the HTTP helper does with objects.
				const multipart = await encodeMultipart(form, `gleaner-${randomBytes(12).toString('hex')}`);
				request.body = Buffer.from(multipart.body.buffer, multipart.body.byteOffset, multipart.body.byteLength);
				request.headers = { ...headers, 'content-type': multipart.contentType };
				request.json = false;
			}
			let response: IN8nHttpFullResponse;
			try {
				response = (await ctx.helpers.httpRequestWithAuthentication.call(ctx, CREDENTIAL_NAME, request)) as IN8nHttpFullResponse;
			} catch (error) {
				// n8n would say only "The service refused the connection": name the URL tried.
				const code = connectionErrorCode(error);
				throw code ? new GleanerUnreachableError(base, code) : error;
			}
			return { status: response.statusCode, headers: headerValues(response.headers), body: jsonBody(response.body) };
		},
	});
}

/** One Gleaner call whose failure becomes the node error n8n shows (the service's own code and message). */
export async function withGleaner<T>(ctx: GleanerContext, call: (gleaner: GleanerCore) => Promise<T>, context: ErrorContext = {}): Promise<T> {
	try {
		return await call(await gleanerClient(ctx));
	} catch (error) {
		throw asNodeError(ctx.getNode(), error, context);
	}
}

/** The answer's JSON, whether the helper parsed it already or handed back text or bytes. */
function jsonBody(body: unknown): unknown {
	const text = Buffer.isBuffer(body) ? body.toString('utf8') : body;
	if (typeof text !== 'string') return text;
	try {
		return JSON.parse(text) as unknown;
	} catch {
		return text;
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
