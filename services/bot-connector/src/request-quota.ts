import { createHash } from 'node:crypto';
import { plannedPlatformRequests, type RequestAdmission } from '@gleaner/bot-platform';
import type { WindowBudget } from '@gleaner/store';

export type QuotaDecision =
  | { granted: true; admission: RequestAdmission; release(): Promise<void> }
  | { granted: false; retryAfterMs: number };

/**
 * The platform's per-token request limit (contract §5), counted in platform requests and shared by
 * every connector replica through Redis. A call first reserves the requests it will most likely
 * make (a new user's full sequence) in one all-or-nothing take, so concurrent calls cannot
 * overbook the window; requests beyond the reservation (retries, per-field fallbacks) are taken
 * one by one when they are about to be sent, and an unused reservation is given back.
 */
export class PlatformRequestQuota {
  constructor(
    private readonly budget: WindowBudget,
    private readonly limit: number,
  ) {}

  async reserve(token: string, fieldCount: number): Promise<QuotaDecision> {
    const subject = `bot-requests:${createHash('sha256').update(token).digest('hex').slice(0, 32)}`;
    const planned = Math.min(plannedPlatformRequests(fieldCount), this.limit);
    const grant = await this.budget.take(subject, this.limit, planned);
    if (!grant.granted) return { granted: false, retryAfterMs: grant.resetMs };
    let reserved = planned;
    return {
      granted: true,
      admission: {
        admit: async () => {
          if (reserved > 0) {
            reserved--;
            return { admitted: true };
          }
          const extra = await this.budget.take(subject, this.limit, 1);
          return extra.granted ? { admitted: true } : { admitted: false, retryAfterMs: extra.resetMs };
        },
      },
      release: async () => {
        const unused = reserved;
        reserved = 0;
        await this.budget.giveBack(subject, grant.window, unused);
      },
    };
  }
}
