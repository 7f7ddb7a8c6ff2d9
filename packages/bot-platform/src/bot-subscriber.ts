/** The parts of the platform's BotUser we rely on; everything else is kept but untyped. */
export interface BotSubscriber {
  user_ns: string;
  user_id?: string | null;
  phone?: string | null;
  name?: string;
  [key: string]: unknown;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function asSubscriber(v: unknown): BotSubscriber | null {
  return isRecord(v) && typeof v.user_ns === 'string' && v.user_ns !== '' ? (v as BotSubscriber) : null;
}

/**
 * A single BotUser from `{"status":"ok","data":{…}}` (what live clients see) or a bare object
 * (what the spec declares). Null when neither carries a `user_ns`: contract §3.1 counts a 200
 * without one as "not found".
 */
export function subscriberFromBody(body: unknown): BotSubscriber | null {
  return asSubscriber(isRecord(body) ? body.data : undefined) ?? asSubscriber(body);
}

/** The BotUsers of a list answer `{"data":[…]}`; entries without a `user_ns` are dropped. */
export function subscribersFromList(body: unknown): BotSubscriber[] | null {
  if (!isRecord(body) || !Array.isArray(body.data)) return null;
  return body.data.map(asSubscriber).filter((s): s is BotSubscriber => s !== null);
}
