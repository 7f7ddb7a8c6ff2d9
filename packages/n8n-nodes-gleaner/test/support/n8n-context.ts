import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	INode,
	INodeExecutionData,
	INodeParameters,
	INodeTypeDescription,
	IWebhookFunctions,
} from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';
import { GleanerApi } from '../../credentials/GleanerApi.credentials.js';

/**
 * Stand-ins for the execution contexts n8n hands a node (contract §6). Parameters are normalised
 * with n8n's own `NodeHelpers.getNodeParameters`, so defaults apply and parameters hidden by
 * `displayOptions` are absent, as in n8n. `helpers.httpRequestWithAuthentication` applies the
 * credential type's real `authenticate` definition and forwards the request with fetch.
 */

export interface GleanerCredentials {
	baseUrl: string;
	apiKey: string;
}

export interface HttpCall {
	credentialsType: string;
	options: IHttpRequestOptions;
}

export interface LogLine {
	level: 'debug' | 'info' | 'warn' | 'error';
	message: string;
}

/** What n8n 2.x's httpRequest returns with `returnFullResponse`. */
interface FullResponse {
	body: unknown;
	headers: IDataObject;
	statusCode: number;
	statusMessage: string;
}

const credentialType = new GleanerApi();

/** Resolves the `={{$credentials.x}}` expressions the credential type uses. */
export function resolveCredentialExpression(value: string, credentials: GleanerCredentials): string {
	const template = value.startsWith('=') ? value.slice(1) : value;
	return template.replace(/\{\{\s*\$credentials\.(\w+)\s*\}\}/g, (_m, key: string) =>
		String(credentials[key as keyof GleanerCredentials] ?? ''),
	);
}

/** Headers n8n adds to a request authenticated with the Gleaner credential. */
export function authenticationHeaders(credentials: GleanerCredentials): Record<string, string> {
	const headers = credentialType.authenticate.properties.headers ?? {};
	return Object.fromEntries(
		Object.entries(headers).map(([name, value]) => [name, resolveCredentialExpression(String(value), credentials)]),
	);
}

/**
 * `helpers.httpRequestWithAuthentication` over fetch, with n8n's option semantics for what the
 * nodes use: json bodies and answers, qs, returnFullResponse, ignoreHttpStatusErrors (otherwise an
 * AxiosError-like error is thrown, as n8n's httpRequest does; also when no connection is made, with its code).
 */
export function forwardWithCredential(credentials: GleanerCredentials, calls: HttpCall[]) {
	return async function httpRequestWithAuthentication(
		this: unknown,
		credentialsType: string,
		options: IHttpRequestOptions,
	): Promise<unknown> {
		calls.push({ credentialsType, options });
		if (credentialsType !== credentialType.name) throw new Error(`Unknown credential type ${credentialsType}`);
		const url = new URL(options.baseURL ? `${options.baseURL.replace(/\/+$/, '')}/${options.url.replace(/^\/+/, '')}` : options.url);
		for (const [key, value] of Object.entries(options.qs ?? {})) url.searchParams.set(key, String(value));
		const headers: Record<string, string> = {
			...(options.headers as Record<string, string> | undefined),
			...authenticationHeaders(credentials),
		};
		let body: string | Uint8Array<ArrayBuffer> | undefined;
		if (Buffer.isBuffer(options.body)) {
			// Bytes go out as they are, with the caller's content type (a multipart upload).
			body = new Uint8Array(options.body);
		} else if (options.body !== undefined) {
			body = JSON.stringify(options.body);
			headers['content-type'] = 'application/json';
		}
		let response: Response;
		try {
			response = await fetch(url, { method: options.method ?? 'GET', headers, body });
		} catch (error) {
			// n8n's httpRequest (axios) throws an AxiosError carrying the system error's code.
			const code = (error as { cause?: { code?: string } }).cause?.code ?? 'ECONNRESET';
			throw Object.assign(new Error(`connect ${code} ${url.host}`), { name: 'AxiosError', code, cause: error });
		}
		const text = await response.text();
		const parsed: unknown =
			options.json && text && (response.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text;
		const full: FullResponse = {
			body: parsed,
			headers: Object.fromEntries(response.headers.entries()),
			statusCode: response.status,
			statusMessage: response.statusText,
		};
		if (response.status >= 400 && !options.ignoreHttpStatusErrors) {
			throw Object.assign(new Error(`Request failed with status code ${response.status}`), {
				name: 'AxiosError',
				status: response.status,
				response: { status: response.status, statusText: response.statusText, headers: full.headers, data: parsed },
			});
		}
		return options.returnFullResponse ? full : parsed;
	};
}

export function recordingLogger(lines: LogLine[]) {
	const at = (level: LogLine['level']) => (message: string) => void lines.push({ level, message });
	return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

function nodeOf(description: INodeTypeDescription, parameters: INodeParameters): INode {
	return {
		id: 'node-1',
		name: description.defaults.name ?? description.displayName,
		type: `n8n-nodes-gleaner.${description.name}`,
		typeVersion: 1,
		position: [0, 0],
		parameters,
	};
}

function normalise(description: INodeTypeDescription, given: INodeParameters): INodeParameters {
	const resolved = NodeHelpers.getNodeParameters(description.properties, given, true, false, { typeVersion: 1 }, description);
	if (!resolved) throw new Error('parameters could not be resolved');
	return resolved;
}

/** n8n's getNodeParameter: the value, else the fallback, else an error naming the parameter. */
function parameterGetter(parameters: INodeParameters) {
	return (name: string, fallback?: unknown): unknown => {
		if (name in parameters) return parameters[name];
		if (fallback !== undefined) return fallback;
		throw new Error(`Could not get parameter "${name}"`);
	};
}

/** An item's binary property as n8n holds it: metadata, and the bytes getBinaryDataBuffer returns. */
export interface TestBinary {
	fileName?: string;
	fileExtension?: string;
	mimeType: string;
	bytes: Buffer;
}

export interface ExecuteSetup {
	description: INodeTypeDescription;
	credentials: GleanerCredentials;
	/** Node parameters; an item's `params` override them for that item (as an expression would). */
	parameters: INodeParameters;
	items?: Array<{ json: IDataObject; params?: INodeParameters; binary?: Record<string, TestBinary> }>;
	continueOnFail?: boolean;
	workflowId?: string;
}

/** n8n's getWorkflow(): the workflow the node runs in. */
const workflowOf = (id = 'wf-test') => () => ({ id, name: 'Test workflow', active: true });

export function createExecuteContext(setup: ExecuteSetup) {
	const calls: HttpCall[] = [];
	const logs: LogLine[] = [];
	const items = setup.items ?? [{ json: {} }];
	const perItem = items.map((item) => normalise(setup.description, { ...setup.parameters, ...item.params }));
	const ctx = {
		getInputData: (): INodeExecutionData[] => items.map((item) => ({ json: item.json })),
		getNodeParameter: (name: string, itemIndex: number, fallback?: unknown) => parameterGetter(perItem[itemIndex])(name, fallback),
		getNode: () => nodeOf(setup.description, perItem[0]),
		getCredentials: async (type: string) => {
			if (type !== credentialType.name) throw new Error(`Node does not have credentials of type ${type}`);
			return setup.credentials;
		},
		continueOnFail: () => setup.continueOnFail ?? false,
		getWorkflow: workflowOf(setup.workflowId),
		logger: recordingLogger(logs),
		helpers: {
			httpRequestWithAuthentication: forwardWithCredential(setup.credentials, calls),
			// n8n's own messages for a missing binary property (NodeOperationError in n8n).
			assertBinaryData: (itemIndex: number, property: string) => {
				const binary = items[itemIndex].binary?.[property];
				if (!binary) throw new Error(`This operation expects the node's input data to contain a binary file '${property}', but none was found [item ${itemIndex}]`);
				return { fileName: binary.fileName, fileExtension: binary.fileExtension, mimeType: binary.mimeType, data: '' };
			},
			getBinaryDataBuffer: async (itemIndex: number, property: string) => items[itemIndex].binary![property].bytes,
		},
	};
	return { ctx: ctx as unknown as IExecuteFunctions, calls, logs };
}

export interface HookSetup {
	description: INodeTypeDescription;
	credentials: GleanerCredentials;
	parameters: INodeParameters;
	staticData: IDataObject;
	webhookUrl: string;
}

/** The context of a loadOptions method (a dropdown being filled in the editor). */
export function createLoadOptionsContext(setup: { description: INodeTypeDescription; credentials: GleanerCredentials }) {
	const calls: HttpCall[] = [];
	const ctx = {
		getNode: () => nodeOf(setup.description, {}),
		getCredentials: async () => setup.credentials,
		helpers: { httpRequestWithAuthentication: forwardWithCredential(setup.credentials, calls) },
	};
	return { ctx: ctx as unknown as ILoadOptionsFunctions, calls };
}

export function createHookContext(setup: HookSetup) {
	const calls: HttpCall[] = [];
	const logs: LogLine[] = [];
	const parameters = normalise(setup.description, setup.parameters);
	const ctx = {
		getNodeParameter: parameterGetter(parameters),
		getNode: () => nodeOf(setup.description, parameters),
		getNodeWebhookUrl: (name: string) => (name === 'default' ? setup.webhookUrl : undefined),
		getWorkflowStaticData: (type: string) => {
			if (type !== 'node') throw new Error(`unexpected static data scope ${type}`);
			return setup.staticData;
		},
		getCredentials: async () => setup.credentials,
		logger: recordingLogger(logs),
		helpers: { httpRequestWithAuthentication: forwardWithCredential(setup.credentials, calls) },
	};
	return { ctx: ctx as unknown as IHookFunctions, calls, logs };
}

export interface WebhookSetup {
	description: INodeTypeDescription;
	credentials: GleanerCredentials;
	parameters: INodeParameters;
	staticData: IDataObject;
	/** The request as n8n's webhook server has it: lower-cased headers, parsed body, raw bytes. */
	request: { headers: Record<string, string | string[] | undefined>; body: IDataObject; rawBody?: Buffer | string };
	/** The response n8n would send; a real ServerResponse or a recorder with the same two methods. */
	response: { writeHead(status: number, headers?: Record<string, string>): unknown; end(body?: string): unknown };
	workflowId?: string;
}

export function createWebhookContext(setup: WebhookSetup) {
	const calls: HttpCall[] = [];
	const logs: LogLine[] = [];
	const parameters = normalise(setup.description, setup.parameters);
	const ctx = {
		getHeaderData: () => setup.request.headers,
		getBodyData: () => setup.request.body,
		getRequestObject: () => ({ headers: setup.request.headers, body: setup.request.body, rawBody: setup.request.rawBody }),
		getResponseObject: () => setup.response,
		getNodeParameter: parameterGetter(parameters),
		getNode: () => nodeOf(setup.description, parameters),
		getWebhookName: () => 'default',
		getWorkflow: workflowOf(setup.workflowId),
		getWorkflowStaticData: () => setup.staticData,
		getCredentials: async () => setup.credentials,
		logger: recordingLogger(logs),
		helpers: { httpRequestWithAuthentication: forwardWithCredential(setup.credentials, calls) },
	};
	return { ctx: ctx as unknown as IWebhookFunctions, calls, logs };
}

/** Records what the trigger answered itself (the `noWebhookResponse` path). */
export function responseRecorder() {
	const recorded: { status?: number; headers?: Record<string, string>; body?: string } = {};
	return {
		recorded,
		writeHead(status: number, headers?: Record<string, string>) {
			recorded.status = status;
			recorded.headers = headers;
		},
		end(body?: string) {
			recorded.body = body;
		},
	};
}
