// Posts to the acquirers' notification addresses, counted per client address whichever business they
// name, in the service's rate-limit store (shared by every instance, like the API's and the payer
// pages' counts). An acquirer sends from a few addresses for all its accounts, so the limit is high;
// it is there so that one address (or IPv6 /64, as the payer pages count clients) cannot make the
// service read posts as fast as it can send them.
import { clientOf, type RateLimiter } from './limiter.js';

export interface NotificationLimits {
  /** Posts per client address per window. */
  perAddress: number;
  /** Length of each counting window, in seconds. */
  windowSeconds: number;
}

export const DEFAULT_NOTIFICATION_LIMITS: NotificationLimits = { perAddress: 300, windowSeconds: 10 };

export class NotificationLimiter {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly limits: NotificationLimits,
  ) {}

  /** Seconds until `address` may post again, or undefined when this post is allowed. */
  async post(address: string): Promise<number | undefined> {
    const result = await this.limiter.hit(`acquirer-ip:${clientOf(address)}`, Date.now(), {
      limit: this.limits.perAddress,
      seconds: this.limits.windowSeconds,
    });
    return result.allowed ? undefined : result.retryAfter;
  }
}
