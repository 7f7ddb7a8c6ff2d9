import type { BotPlatformClient } from './bot-platform-client.js';
import { BotPlatformError } from './bot-platform-error.js';
import type { BotSubscriber } from './bot-subscriber.js';
import type { BotWebhookInput, BotWebhookOutcome, BotWebhookResult } from './bot-webhook-types.js';
import { findSubscriber, type SubscriberOrigin } from './find-subscriber.js';
import { normalizePhone } from './phone.js';
import { timeLeft } from './platform-transport.js';
import { updateUserFields } from './update-user-fields.js';

/**
 * A create or a send is started only with at least this much time left before the caller's
 * deadline. Started later, it would most likely be cut off by that deadline while the platform
 * may still carry it out: the caller would hear "failed" (or nothing) for something that happened,
 * and a retrying caller would create a second subscriber or message the person twice.
 */
export const MIN_TIME_FOR_A_WRITE_MS = 2_000;

export interface BotWebhookOptions {
  /** Epoch ms by which the caller must have its answer (pass the same to the client). */
  deadlineAt?: number;
}

const reasonOf = (err: unknown): string => (err instanceof BotPlatformError ? err.message : 'unexpected error');
const isUnauthorized = (err: unknown): boolean => err instanceof BotPlatformError && err.kind === 'unauthorized';
const unauthorized = (err: unknown): BotWebhookOutcome => ({ httpStatus: 401, body: { error: 'The bot platform rejected the access token', details: [reasonOf(err)] } });

const FOUND_MESSAGE: Record<SubscriberOrigin | 'created', string> = {
  user_id: 'User found',
  phone_search: 'User found by phone number search',
  created: 'User not found; created a new user',
};

function fieldsMessage(updated: number, total: number): string {
  if (total === 0) return 'No custom fields to update';
  return updated === total ? `Updated ${total} custom field${total === 1 ? '' : 's'}` : `Updated ${updated} of ${total} custom fields`;
}

/**
 * API-DECISIONS "Bot webhook": find the user by phone (else create; 404 when that fails), set the
 * custom fields, send the flow. 200 when all three succeed, 206 when the user exists but a later
 * step failed, 401 whenever the platform refuses the token. The input must already be validated
 * (see parseBotWebhookRequest); an invalid phone number is a programming error and throws.
 * With a deadline, the outcome is always known before it: lookups stop retrying and a create or
 * send is not started once too little time is left (MIN_TIME_FOR_A_WRITE_MS), so nothing reaches
 * the platform after the caller was answered.
 */
export async function runBotWebhook(input: BotWebhookInput, client: BotPlatformClient, options: BotWebhookOptions = {}): Promise<BotWebhookOutcome> {
  const digits = normalizePhone(input.phone_number);
  if (digits === null) throw new RangeError('runBotWebhook needs a validated phone number');
  const timeForAWrite = () => timeLeft(options.deadlineAt) >= MIN_TIME_FOR_A_WRITE_MS;

  let subscriber: BotSubscriber;
  let origin: SubscriberOrigin | 'created';
  try {
    const found = await findSubscriber(client, digits);
    if (found) ({ subscriber, origin } = found);
    else {
      if (!timeForAWrite()) {
        return { httpStatus: 500, body: { error: 'Looking up the user on the bot platform took the time allowed for this call; the user was not created (nothing was changed)' } };
      }
      try {
        subscriber = await client.createSubscriber({ phone: digits });
        origin = 'created';
      } catch (err) {
        if (isUnauthorized(err)) return unauthorized(err);
        return { httpStatus: 404, body: { error: 'User not found, and creating it on the bot platform failed', details: [reasonOf(err)] } };
      }
    }
  } catch (err) {
    if (isUnauthorized(err)) return unauthorized(err);
    return { httpStatus: 500, body: { error: `Could not look up the user on the bot platform: ${reasonOf(err)}` } };
  }
  const userNs = subscriber.user_ns;

  const fields = Object.entries(input.user_fields ?? {}).map(([name, value]) => ({ name, value: String(value) }));
  let details: BotWebhookResult['custom_fields_update']['details'];
  try {
    details = fields.length === 0 ? [] : await updateUserFields(client, userNs, fields);
  } catch (err) {
    if (isUnauthorized(err)) return unauthorized(err);
    throw err;
  }
  const updated = details.filter((d) => d.status === 'updated').length;

  let flowSent: BotWebhookResult['flow_sent'];
  if (!timeForAWrite()) {
    flowSent = { success: false, message: 'Flow not sent: the earlier steps took the time allowed for this call' };
  } else {
    try {
      await client.sendSubFlow(userNs, input.flow_ns);
      flowSent = { success: true, message: `Flow ${input.flow_ns} sent` };
    } catch (err) {
      if (isUnauthorized(err)) return unauthorized(err);
      flowSent = { success: false, message: `Flow not sent: ${reasonOf(err)}` };
    }
  }

  const body: BotWebhookResult = {
    user_ns_retrieval: { success: true, message: FOUND_MESSAGE[origin], user_ns: userNs },
    custom_fields_update: { success: updated === fields.length, message: fieldsMessage(updated, fields.length), details },
    flow_sent: flowSent,
  };
  return { httpStatus: body.custom_fields_update.success && flowSent.success ? 200 : 206, body };
}
