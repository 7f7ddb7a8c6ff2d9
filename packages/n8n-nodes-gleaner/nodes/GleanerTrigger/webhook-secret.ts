import type { IWebhookFunctions } from 'n8n-workflow';
import { withGleaner } from '../shared/gleaner-api.js';
import { signatureMatches, type WebhookSignature } from './webhook-signature.js';

/** Key of the cached account webhook secret in the node's static data. */
export const SECRET_KEY = 'webhookSecret';

/**
 * Checks a delivery against the account's webhook secret. The secret is cached in the node's static
 * data so that a delivery costs no API call; on a mismatch it is fetched again once, because the
 * account may have rotated it since (`POST /account/webhook-secret/rotate`). Throws when the
 * secret cannot be fetched: the caller cannot tell a valid delivery from a forged one then.
 */
export async function verifyWithAccountSecret(
	ctx: IWebhookFunctions,
	signature: WebhookSignature,
	rawBody: Buffer,
): Promise<boolean> {
	const data = ctx.getWorkflowStaticData('node');
	const cached = typeof data[SECRET_KEY] === 'string' ? (data[SECRET_KEY] as string) : undefined;
	if (cached !== undefined && signatureMatches(cached, signature, rawBody)) return true;

	const current = await fetchWebhookSecret(ctx);
	if (current === cached) return false;
	data[SECRET_KEY] = current;
	return signatureMatches(current, signature, rawBody);
}

function fetchWebhookSecret(ctx: IWebhookFunctions): Promise<string> {
	return withGleaner(ctx, (gleaner) => gleaner.webhookSecret());
}
