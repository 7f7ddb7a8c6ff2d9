import type {
	IDataObject,
	IHookFunctions,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import { GleanerApiError, type GleanerCore, type WebhookFamily } from '@gleaner/client/core';
import { CREDENTIAL_NAME, gleanerClient } from '../shared/gleaner-api.js';
import { asNodeError, missingScope } from '../shared/node-error.js';
import { withTags } from '../Gleaner/operations.js';
import { workflowTag } from '../Gleaner/request-bodies.js';
import { SECRET_KEY, storeWebhookSecret, verifyWithAccountSecret } from './webhook-secret.js';
import { isFresh, parseSignatureHeader, rawBodyOf } from './webhook-signature.js';

/** Key of the service's subscription id in the node's static data. */
const SUBSCRIPTION_KEY = 'webhookId';

export class GleanerTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Gleaner Trigger',
		name: 'gleanerTrigger',
		icon: { light: 'file:../../icons/gleaner.svg', dark: 'file:../../icons/gleaner.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{$parameter["families"].join(", ")}}',
		description: 'Starts the workflow when a Gleaner scrape, document parse, crawl or map finishes',
		eventTriggerDescription: 'Waiting for a Gleaner request to finish',
		defaults: { name: 'Gleaner Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: CREDENTIAL_NAME, required: true }],
		webhooks: [{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'webhook' }],
		properties: [
			{
				displayName: 'Families',
				name: 'families',
				type: 'multiOptions',
				required: true,
				options: [
					{ name: 'Batch', value: 'batch', description: 'The end of each POST /web-scrapper/batch (batch.completed, batch.cancelled or batch.failed, with its counts)' },
					{ name: 'Crawl', value: 'crawl', description: 'The end of each POST /web-scrapper/crawl (crawl.completed, crawl.cancelled or crawl.failed, with its counts; read its pages with Get Crawl)' },
					{ name: 'Document Parse', value: 'parse', description: 'POST /documents/parse requests' },
					{ name: 'Map', value: 'map', description: 'POST /web-scrapper/map requests, with their links' },
					{ name: 'Scrape', value: 'scrape', description: 'POST /web-scrapper/ requests' },
					{ name: 'Scrape V1 (Deprecated)', value: 'scrape-v1', description: 'POST /v1/llm-web-scrapper requests' },
				],
				default: ['scrape', 'scrape-v1', 'parse'],
				description: 'Which requests of the account start the workflow when they complete, fail or (crawls and batches) are cancelled',
			},
			{
				displayName: 'Ignore Requests From This Workflow',
				name: 'ignoreOwnRequests',
				type: 'boolean',
				default: true,
				description:
					'Whether to skip requests made by Gleaner nodes of this same workflow (they carry the tag n8n-workflow:&lt;workflow ID&gt;), so that "Gleaner Trigger → Gleaner" does not start itself again for every scrape it makes',
			},
			{
				displayName: 'Only Requests Tagged',
				name: 'onlyTag',
				type: 'string',
				default: '',
				placeholder: 'invoices',
				description: "Start only for requests carrying this tag (a Gleaner node's Request Tags); empty starts for every request",
			},
		],
	};

	/**
	 * The trigger subscribes this node's webhook URL to the account's finished requests
	 * (`/account/webhooks`, key scope `account`) and keeps the subscription id in static data.
	 */
	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				const url = webhookUrl(this);
				const families = selectedFamilies(this);
				const data = this.getWorkflowStaticData('node');
				const forThisUrl = (await subscriptionCall(this, (gleaner) => gleaner.listWebhooks())).filter((s) => s.url === url);
				const keep =
					forThisUrl.find((s) => s.id === data[SUBSCRIPTION_KEY] && sameFamilies(s.families, families)) ??
					forThisUrl.find((s) => sameFamilies(s.families, families));
				// The URL is unique to this node, so any other subscription to it is a leftover
				// (other families chosen before, or a duplicate) that would deliver twice or wrongly.
				for (const stale of forThisUrl.filter((s) => s !== keep)) {
					await subscriptionCall(this, (gleaner) => gleaner.deleteWebhook(stale.id));
				}
				if (!keep) {
					delete data[SUBSCRIPTION_KEY];
					return false;
				}
				data[SUBSCRIPTION_KEY] = keep.id;
				// Kept with the subscription: deliveries are checked against it without an API call.
				await storeWebhookSecret(this);
				return true;
			},

			async create(this: IHookFunctions): Promise<boolean> {
				const url = webhookUrl(this);
				const families = selectedFamilies(this);
				const subscription = await subscriptionCall(this, (gleaner) => gleaner.createWebhook(url, families));
				this.getWorkflowStaticData('node')[SUBSCRIPTION_KEY] = subscription.id;
				await storeWebhookSecret(this);
				return true;
			},

			async delete(this: IHookFunctions): Promise<boolean> {
				const data = this.getWorkflowStaticData('node');
				const id = data[SUBSCRIPTION_KEY];
				if (typeof id === 'string' && (await subscriptionCall(this, (gleaner) => gleaner.deleteWebhook(id))) === 'missing') {
					this.logger.info(`Gleaner webhook subscription ${id} was already gone`);
				}
				delete data[SUBSCRIPTION_KEY];
				delete data[SECRET_KEY];
				return true;
			},
		},
	};

	/**
	 * Starts the workflow only for deliveries signed with the account's webhook secret and dated
	 * within 5 minutes. Anything else is answered 401 and starts nothing; the service does not
	 * retry a 4xx answer. When the secret cannot be fetched the answer is 503, which it retries.
	 */
	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const headers = this.getHeaderData();
		const body = this.getBodyData();
		const signature = parseSignatureHeader(headerValue(headers['x-webhook-signature']));
		if (!signature) return refuse(this, 401, 'missing or malformed X-Webhook-Signature');
		if (!isFresh(signature, Math.floor(Date.now() / 1000))) {
			return refuse(this, 401, 'signature timestamp is more than 5 minutes from now');
		}

		const { rawBody } = this.getRequestObject() as unknown as { rawBody?: unknown };
		let valid: boolean;
		try {
			valid = await verifyWithAccountSecret(this, signature, rawBodyOf(rawBody, body));
		} catch (error) {
			this.logger.warn(`Gleaner Trigger could not fetch the webhook secret: ${(error as Error).message}`);
			return refuse(this, 503, 'webhook secret unavailable, retry later');
		}
		if (!valid) {
			return refuse(this, 401, "signature does not match the account's webhook secret stored at activation (if it was rotated, deactivate and activate the workflow)");
		}
		const skipped = skipReason(this, body);
		if (skipped) {
			this.logger.debug(`Gleaner Trigger skipped a delivery: ${skipped}`);
			return { webhookResponse: { skipped } };
		}

		const delivery: IDataObject = {
			request_id: headerValue(headers['x-request-id']) ?? null,
			delivery_id: headerValue(headers['x-webhook-delivery']) ?? null,
			attempt: Number(headerValue(headers['x-webhook-attempt'])) || null,
		};
		return { workflowData: [[{ json: { ...withTags(body), delivery } }]] };
	}
}

/** Why a verified delivery starts nothing (the trigger's filters), or undefined when it starts the workflow. */
function skipReason(ctx: IWebhookFunctions, body: IDataObject): string | undefined {
	const tags = Array.isArray(body.tags) ? body.tags.map(String) : [];
	const workflowId = ctx.getWorkflow().id;
	if ((ctx.getNodeParameter('ignoreOwnRequests', true) as boolean) && workflowId && tags.includes(workflowTag(workflowId))) {
		return 'a request made by this workflow';
	}
	const onlyTag = (ctx.getNodeParameter('onlyTag', '') as string).trim();
	if (onlyTag && !tags.includes(onlyTag)) return `a request without the tag ${onlyTag}`;
	return undefined;
}

/**
 * A subscription call of activation or deactivation. The two refusals a user can fix say how: a
 * key without the `account` scope (the credential test passes for any valid key), and a webhook
 * URL Gleaner will not deliver to (n8n behind plain http or on a private address).
 */
async function subscriptionCall<T>(ctx: IHookFunctions, call: (gleaner: GleanerCore) => Promise<T>): Promise<T> {
	try {
		return await call(await gleanerClient(ctx));
	} catch (error) {
		if (error instanceof GleanerApiError && error.status === 403) {
			const { message, description } = missingScope({ scope: 'account', by: "the Gleaner Trigger (to subscribe to the account's requests)" }, error.body);
			throw new NodeOperationError(ctx.getNode(), message, { description });
		}
		if (error instanceof GleanerApiError && error.code === 'E009' && /url /.test(error.body.error)) {
			throw new NodeOperationError(ctx.getNode(), `Gleaner will not deliver to this workflow's webhook URL, ${ctx.getNodeWebhookUrl('default') ?? ''}`, {
				description: `Gleaner answered: ${error.body.error}. It delivers only to public HTTPS URLs: set n8n's WEBHOOK_URL to a public https address that reaches n8n, or, for a local setup, have the Gleaner operator set GLEANER_ALLOW_PRIVATE_NETWORKS=true.`,
			});
		}
		throw asNodeError(ctx.getNode(), error);
	}
}

function webhookUrl(ctx: IHookFunctions): string {
	const url = ctx.getNodeWebhookUrl('default');
	if (!url) throw new NodeOperationError(ctx.getNode(), 'n8n did not provide a webhook URL for this node');
	return url;
}

function selectedFamilies(ctx: IHookFunctions): WebhookFamily[] {
	const families = ctx.getNodeParameter('families', []) as WebhookFamily[];
	if (families.length === 0) throw new NodeOperationError(ctx.getNode(), 'Choose at least one family');
	return families;
}

function sameFamilies(a: string[], b: string[]): boolean {
	const left = new Set(a);
	const right = new Set(b);
	return left.size === right.size && [...left].every((family) => right.has(family));
}

function headerValue(value: string | string[] | undefined): string | undefined {
	return Array.isArray(value) ? value[0] : value;
}

/** Answers the request here (n8n sends nothing itself) so the status code reaches the sender. */
function refuse(ctx: IWebhookFunctions, status: 401 | 503, reason: string): IWebhookResponseData {
	if (status === 401) ctx.logger.warn(`Gleaner Trigger refused a delivery: ${reason}`);
	const response = ctx.getResponseObject();
	response.writeHead(status, {
		'content-type': 'application/json',
		...(status === 503 ? { 'retry-after': '60' } : {}),
	});
	response.end(JSON.stringify({ error: reason }));
	return { noWebhookResponse: true };
}
