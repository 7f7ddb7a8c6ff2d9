import type { IHookFunctions, IWebhookFunctions } from 'n8n-workflow';
import { withGleaner } from '../shared/gleaner-api.js';
import { signatureMatches, type WebhookSignature } from './webhook-signature.js';

/** Key of the account webhook secret in the node's static data. */
export const SECRET_KEY = 'webhookSecret';

/**
 * Fetches the account's webhook secret while the webhook is being set up (activation) and keeps it
 * in the node's static data, which n8n saves then. n8n does not save what a webhook call writes
 * there, so deliveries must never need to fetch it: that cost a rate-limited API call each.
 */
export async function storeWebhookSecret(ctx: IHookFunctions): Promise<void> {
	ctx.getWorkflowStaticData('node')[SECRET_KEY] = await withGleaner(ctx, (gleaner) => gleaner.webhookSecret());
}

/**
 * Checks a delivery against the secret stored at activation. A workflow activated by an older
 * version of this node has none: it is fetched (one API call per delivery) until the workflow is
 * activated again, which the log says. Throws when it cannot be fetched.
 */
export async function verifyWithAccountSecret(
	ctx: IWebhookFunctions,
	signature: WebhookSignature,
	rawBody: Buffer,
): Promise<boolean> {
	const stored = ctx.getWorkflowStaticData('node')[SECRET_KEY];
	if (typeof stored === 'string' && stored) return signatureMatches(stored, signature, rawBody);
	ctx.logger.warn('Gleaner Trigger has no stored webhook secret: deactivate and activate the workflow so deliveries stop fetching it');
	const fetched = await withGleaner(ctx, (gleaner) => gleaner.webhookSecret());
	return signatureMatches(fetched, signature, rawBody);
}
