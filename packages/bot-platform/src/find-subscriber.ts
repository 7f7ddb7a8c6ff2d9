import type { BotPlatformClient } from './bot-platform-client.js';
import type { BotSubscriber } from './bot-subscriber.js';
import { normalizePhone } from './phone.js';

export type SubscriberOrigin = 'user_id' | 'phone_search';

/**
 * Contract §6 steps 2-3: the WhatsApp user id first, then the phone search with `+<digits>` and
 * `<digits>` (how the platform stores phones is unknown). Search hits must carry the same digits:
 * a loose match would send the flow to someone else. Lookup errors propagate, so nobody is
 * created while the platform could not say whether the user exists.
 */
export async function findSubscriber(client: BotPlatformClient, digits: string): Promise<{ subscriber: BotSubscriber; origin: SubscriberOrigin } | null> {
  const byUserId = await client.findSubscriberByUserId(digits);
  if (byUserId) return { subscriber: byUserId, origin: 'user_id' };
  for (const phone of [`+${digits}`, digits]) {
    const hits = await client.searchSubscribersByPhone(phone);
    const match = hits.find((s) => s.user_id === digits || (typeof s.phone === 'string' && normalizePhone(s.phone) === digits));
    if (match) return { subscriber: match, origin: 'phone_search' };
  }
  return null;
}
