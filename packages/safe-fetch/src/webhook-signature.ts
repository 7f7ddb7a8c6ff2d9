import { createHmac, timingSafeEqual } from 'node:crypto';

function hmacHex(secret: string, rawBody: string, timestampSeconds: number): string {
  return createHmac('sha256', secret).update(`${timestampSeconds}.${rawBody}`).digest('hex');
}

/**
 * The `X-Webhook-Signature` value: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`
 * keyed with the account's webhook secret. Signing the timestamp with the body lets receivers
 * refuse replays.
 */
export function signWebhook(secret: string, rawBody: string, timestampSeconds: number): string {
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) throw new RangeError('timestampSeconds must be whole Unix seconds');
  return `t=${timestampSeconds},v1=${hmacHex(secret, rawBody, timestampSeconds)}`;
}

export interface VerifyOptions {
  /** How far the signed time may be from now, either way. Default 300 s. */
  toleranceSeconds?: number;
  /** Unix seconds; defaults to the clock. */
  now?: number;
}

/**
 * Receiver side: true when one `v1` of the header is the HMAC of this exact body and timestamp
 * (several `v1` are accepted, as during a secret rotation), compared in constant time, and the
 * timestamp is within the tolerance.
 */
export function verifyWebhookSignature(secret: string, rawBody: string, header: string | undefined, options: VerifyOptions = {}): boolean {
  if (!header) return false;
  let timestamp: number | undefined;
  const signatures: Buffer[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't' && /^\d+$/.test(value)) timestamp = Number(value);
    else if (key === 'v1' && /^[0-9a-f]{64}$/i.test(value)) signatures.push(Buffer.from(value, 'hex'));
  }
  if (timestamp === undefined || signatures.length === 0) return false;
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > (options.toleranceSeconds ?? 300)) return false;
  const expected = Buffer.from(hmacHex(secret, rawBody, timestamp), 'hex');
  // Every candidate is compared so the time taken does not depend on which one matched.
  return signatures.map((given) => timingSafeEqual(given, expected)).includes(true);
}
