import type { BotWebhookInput } from './bot-webhook-types.js';
import { normalizePhone } from './phone.js';

/**
 * Bounds the work one request can cause: with the per-field fallback, every field may become a
 * platform call. 100 fields is five batch calls.
 */
export const MAX_USER_FIELDS = 100;

export type ParsedBotWebhookRequest = { ok: true; input: BotWebhookInput } | { ok: false; error: string; details: string[] };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Validates a bot webhook body for the gateway's 400 answer. Field values must be strings
 * (SPEC: "map of custom field name to string value"); callers send numbers as strings, which is
 * how the platform stores every field type (contract §3.5).
 */
export function parseBotWebhookRequest(body: unknown): ParsedBotWebhookRequest {
  if (!isRecord(body)) return { ok: false, error: 'The body must be a JSON object', details: [] };
  const problems: string[] = [];
  const { phone_number: phone, flow_ns: flowNs, user_fields: rawFields } = body;
  if (phone === undefined || phone === null || phone === '') problems.push('phone_number is required');
  else if (typeof phone !== 'string') problems.push('phone_number must be a string');
  else if (normalizePhone(phone) === null) problems.push('phone_number must be 8 to 15 digits with the country code');
  if (typeof flowNs !== 'string' || flowNs.trim() === '') problems.push('flow_ns is required');

  const fields: Record<string, string> = {};
  if (rawFields !== undefined && rawFields !== null) {
    if (!isRecord(rawFields)) problems.push('user_fields must be an object of field name to string value');
    else {
      const entries = Object.entries(rawFields);
      if (entries.length > MAX_USER_FIELDS) problems.push(`user_fields may hold at most ${MAX_USER_FIELDS} fields`);
      for (const [name, value] of entries) {
        if (name.trim() === '') problems.push('user_fields names must not be empty');
        else if (typeof value === 'string') fields[name] = value;
        else problems.push(`user_fields.${name} must be a string`);
      }
    }
  }
  if (problems.length > 0) return { ok: false, error: 'Invalid bot webhook request', details: problems };
  return { ok: true, input: { phone_number: phone as string, flow_ns: (flowNs as string).trim(), user_fields: fields } };
}
