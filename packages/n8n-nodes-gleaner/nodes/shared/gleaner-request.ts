import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestMethods,
	IN8nHttpFullResponse,
	IWebhookFunctions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

export const CREDENTIAL_NAME = 'gleanerApi';

type GleanerContext = IExecuteFunctions | IHookFunctions | IWebhookFunctions;

export interface GleanerResponse {
	statusCode: number;
	body: IDataObject;
	headers: IDataObject;
}

interface GleanerCredentials {
	baseUrl: string;
}

/**
 * One call to the Gleaner API with the account's key. Every status comes back as a value instead
 * of an exception: the nodes branch on 200 vs 202, 404 and 429, and build their own error from the
 * service's error body, which carries the code ("E002: …", "404-001: …") a user needs to see.
 */
export async function gleanerRequest(
	ctx: GleanerContext,
	method: IHttpRequestMethods,
	path: string,
	body?: IDataObject,
): Promise<GleanerResponse> {
	const { baseUrl } = await ctx.getCredentials<GleanerCredentials>(CREDENTIAL_NAME);
	const response = (await ctx.helpers.httpRequestWithAuthentication.call(ctx, CREDENTIAL_NAME, {
		method,
		url: `${baseUrl.replace(/\/+$/, '')}${path}`,
		...(body ? { body } : {}),
		json: true,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
	})) as IN8nHttpFullResponse;
	return {
		statusCode: response.statusCode,
		body: isObject(response.body) ? response.body : {},
		headers: response.headers ?? {},
	};
}

/** The service's error body as a NodeApiError whose message is the service's own "CODE: message". */
export function apiError(
	ctx: GleanerContext,
	response: GleanerResponse,
	itemIndex?: number,
): NodeApiError {
	const { error, details } = response.body;
	return new NodeApiError(ctx.getNode(), response.body as JsonObject, {
		message: typeof error === 'string' ? error : `Gleaner answered HTTP ${response.statusCode}`,
		description: Array.isArray(details) && details.length ? details.join('; ') : undefined,
		httpCode: String(response.statusCode),
		itemIndex,
	});
}

/** Seconds from a `Retry-After` header (429, 503), if the service sent one. */
export function retryAfterSeconds(response: GleanerResponse): number | undefined {
	const value = Number(response.headers['retry-after']);
	return Number.isFinite(value) && value >= 0 ? value : undefined;
}

function isObject(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}
