import { BotPlatformError } from './bot-platform-error.js';
import { subscriberFromBody, subscribersFromList, type BotSubscriber } from './bot-subscriber.js';
import { DEFAULT_RETRY, withLookupRetry, type RetryPolicy } from './lookup-retry.js';
import { createPlatformTransport, errorFromAnswer, type PlatformAnswer, type PlatformRequest, type PlatformTransportOptions } from './platform-transport.js';

/** Contract §3.5: the platform takes up to 20 user fields per call. */
export const MAX_FIELDS_PER_CALL = 20;

export interface BotPlatformClientOptions extends PlatformTransportOptions {
  /** The brand's API base, ending in `/api` (e.g. `https://www.uchat.com.au/api`). */
  baseUrl: string;
  /** The bot's access token; sent as a Bearer token and never echoed in errors. */
  token: string;
  retry?: Partial<RetryPolicy>;
}

/**
 * Platform requests one webhook call makes when nothing goes wrong and the user is new (the most
 * common worst case): the user-id lookup, two phone searches, the create, one request per batch
 * of fields, the send. Retries and per-field fallbacks come on top. What a quota reserves per call.
 */
export function plannedPlatformRequests(fieldCount: number): number {
  return 3 + 1 + Math.ceil(fieldCount / MAX_FIELDS_PER_CALL) + 1;
}

export interface UserFieldValue {
  name: string;
  value: string;
}

/** One call of `setUserFieldsByName`: the fields it carried and, when it failed, why. */
export interface FieldBatchOutcome {
  fields: UserFieldValue[];
  error?: BotPlatformError;
}

export interface BotPlatformClient {
  /** GET /subscriber/get-info-by-user-id. Null when the platform says there is no such subscriber. */
  findSubscriberByUserId(userId: string): Promise<BotSubscriber | null>;
  /** GET /subscribers?phone=…; the platform matches the stored phone exactly. */
  searchSubscribersByPhone(phone: string): Promise<BotSubscriber[]>;
  /** POST /subscriber/create. Not idempotent: look up first. */
  createSubscriber(input: { phone: string }): Promise<BotSubscriber>;
  /**
   * PUT /subscriber/set-user-fields-by-name in calls of at most 20 fields, one outcome per call.
   * Rejects only when the platform refuses the token: every later call would fail the same way.
   */
  setUserFieldsByName(userNs: string, fields: UserFieldValue[]): Promise<FieldBatchOutcome[]>;
  /** PUT /subscriber/set-user-field-by-name. */
  setUserFieldByName(userNs: string, name: string, value: string): Promise<void>;
  /** POST /subscriber/send-sub-flow. Never retried: the flow may already be queued. */
  sendSubFlow(userNs: string, subFlowNs: string): Promise<void>;
}

const isOk = (answer: PlatformAnswer): boolean =>
  answer.status >= 200 && answer.status < 300 && typeof answer.json === 'object' && answer.json !== null && 'status' in answer.json && answer.json.status === 'ok';

export function createBotPlatformClient(options: BotPlatformClientOptions): BotPlatformClient {
  const transport = createPlatformTransport(options);
  const policy: RetryPolicy = { ...DEFAULT_RETRY, ...options.retry };
  const lookup = <T>(call: () => Promise<T>) => withLookupRetry(call, policy, options.deadlineAt);
  const fail = (answer: PlatformAnswer, action: string) => errorFromAnswer(answer, action, options.token);

  /** Writes succeed only on `{"status":"ok"}` (contract §2: anything else, even a 200, is a failure). */
  const write = async (request: PlatformRequest, action: string): Promise<void> => {
    const answer = await transport(request);
    if (!isOk(answer)) throw fail(answer, action);
  };

  // Contract §3.1: "not found" is a 400 or 404 with a JSON `{message}`, or a 200 without a user_ns.
  // A non-JSON 404 is an HTML page from a wrong base URL, which must not pass for "not found".
  const isNotFound = (answer: PlatformAnswer): boolean => (answer.status === 400 || answer.status === 404) && answer.json !== undefined;

  return {
    findSubscriberByUserId: (userId) =>
      lookup(async () => {
        const answer = await transport({ method: 'GET', path: '/subscriber/get-info-by-user-id', searchParams: { user_id: userId } });
        if (isNotFound(answer)) return null;
        if (answer.status < 200 || answer.status >= 300 || answer.json === undefined) throw fail(answer, 'looking up the subscriber');
        return subscriberFromBody(answer.json);
      }),

    searchSubscribersByPhone: (phone) =>
      lookup(async () => {
        const answer = await transport({ method: 'GET', path: '/subscribers', searchParams: { phone, limit: '10' } });
        const found = answer.status >= 200 && answer.status < 300 ? subscribersFromList(answer.json) : null;
        if (found === null) throw fail(answer, 'searching subscribers by phone');
        return found;
      }),

    async createSubscriber(input) {
      const action = 'creating the subscriber';
      const answer = await transport({ method: 'POST', path: '/subscriber/create', body: { phone: input.phone } });
      const created = answer.status >= 200 && answer.status < 300 ? subscriberFromBody(answer.json) : null;
      if (created === null) throw fail(answer, action);
      return created;
    },

    async setUserFieldsByName(userNs, fields) {
      const outcomes: FieldBatchOutcome[] = [];
      for (let i = 0; i < fields.length; i += MAX_FIELDS_PER_CALL) {
        const batch = fields.slice(i, i + MAX_FIELDS_PER_CALL);
        try {
          await write({ method: 'PUT', path: '/subscriber/set-user-fields-by-name', body: { user_ns: userNs, data: batch.map((f) => ({ name: f.name, value: f.value })) } }, 'setting user fields');
          outcomes.push({ fields: batch });
        } catch (err) {
          if (!(err instanceof BotPlatformError) || err.kind === 'unauthorized') throw err;
          outcomes.push({ fields: batch, error: err });
        }
      }
      return outcomes;
    },

    setUserFieldByName: (userNs, name, value) =>
      write({ method: 'PUT', path: '/subscriber/set-user-field-by-name', body: { user_ns: userNs, field_name: name, value } }, `setting the user field "${name}"`),

    sendSubFlow: (userNs, subFlowNs) =>
      write({ method: 'POST', path: '/subscriber/send-sub-flow', body: { user_ns: userNs, sub_flow_ns: subFlowNs } }, 'sending the sub flow'),
  };
}
