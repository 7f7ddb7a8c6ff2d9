import { createHmac, timingSafeEqual } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

/** Deliveries signed further than this from now are refused, which bounds replays. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/** `X-Webhook-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`. */
export interface WebhookSignature {
	timestamp: number;
	/** Every v1 value in the header; one matching is enough. */
	macs: Buffer[];
}

export function parseSignatureHeader(header: string | undefined): WebhookSignature | undefined {
	if (!header) return undefined;
	let timestamp: number | undefined;
	const macs: Buffer[] = [];
	for (const part of header.split(',')) {
		const separator = part.indexOf('=');
		if (separator < 0) continue;
		const key = part.slice(0, separator).trim();
		const value = part.slice(separator + 1).trim();
		if (key === 't' && /^\d{1,12}$/.test(value)) timestamp = Number(value);
		else if (key === 'v1' && /^[0-9a-f]{64}$/i.test(value)) macs.push(Buffer.from(value, 'hex'));
	}
	return timestamp !== undefined && macs.length > 0 ? { timestamp, macs } : undefined;
}

export function isFresh(signature: WebhookSignature, nowSeconds: number): boolean {
	return Math.abs(nowSeconds - signature.timestamp) <= SIGNATURE_TOLERANCE_SECONDS;
}

/** Constant-time comparison of the expected MAC with each given one. */
export function signatureMatches(secret: string, signature: WebhookSignature, rawBody: Buffer): boolean {
	const expected = createHmac('sha256', secret).update(`${signature.timestamp}.`).update(rawBody).digest();
	return signature.macs.some((mac) => mac.length === expected.length && timingSafeEqual(mac, expected));
}

/**
 * The bytes the service signed. n8n keeps them as `req.rawBody`; re-serialising the parsed body is
 * only a fallback, and matches only because the service sends compact `JSON.stringify` output.
 */
export function rawBodyOf(rawBody: unknown, parsedBody: IDataObject): Buffer {
	if (Buffer.isBuffer(rawBody)) return rawBody;
	if (typeof rawBody === 'string') return Buffer.from(rawBody, 'utf8');
	return Buffer.from(JSON.stringify(parsedBody), 'utf8');
}
