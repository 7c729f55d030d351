// Limits on the payer forms, against card testing: anyone may post a pay form or an activation form,
// so each post is counted per client address, and each attempt that would reach the acquirer per link
// (or token) and per card. Counted in the API limiter's store (memory on SQLite, the database on
// PostgreSQL, Redis when configured), so every instance shares the counts. A card is counted under an
// HMAC of its number with a server key: the number itself is never stored or logged.
import { createHmac } from 'node:crypto';
import type Koa from 'koa';
import type { RateLimiter } from '../../shared/rate-limiter.js';
import { setPageSecurityHeaders } from './headers.js';
import { page } from '../../shared/html.js';
import { messagePage } from './messages.js';

export interface PageLimits {
  /** Length of each counting window, in seconds. */
  windowSeconds: number;
  /** Form posts per client address per window: every post to a pay or activation form. */
  perAddress: number;
  /** Attempts per payment link, open link or token per window: posts that would reach the acquirer. */
  perLink: number;
  /** Attempts per card number per window. */
  perCard: number;
}

export const DEFAULT_PAGE_LIMITS: PageLimits = { windowSeconds: 600, perAddress: 30, perLink: 100, perCard: 10 };

/** Stands for a card number in a bucket name: 192 bits of an HMAC keyed with the server's key. */
export function cardFingerprint(key: Buffer, cardNumber: string): string {
  return createHmac('sha256', key).update(cardNumber).digest('base64url').slice(0, 32);
}

/** Seconds until another attempt is allowed, or undefined when this one is. */
export type Refusal = number | undefined;

export class PageLimiter {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly limits: PageLimits,
    private readonly fingerprintKey: Buffer,
  ) {}

  private async count(bucket: string, limit: number): Promise<Refusal> {
    const result = await this.limiter.hit(bucket, Date.now(), { limit, seconds: this.limits.windowSeconds });
    return result.allowed ? undefined : result.retryAfter;
  }

  /** Every post of a payer form, before its body is read. */
  post(address: string): Promise<Refusal> {
    return this.count(`page-ip:${address}`, this.limits.perAddress);
  }

  /**
   * A valid form about to reach the acquirer: counted per link (or token) id, then per card when the
   * card is typed on our form (on an acquirer's own page, the acquirer counts cards).
   */
  async attempt(linkId: string, cardNumber?: string): Promise<Refusal> {
    const refused = await this.count(`page-link:${linkId}`, this.limits.perLink);
    if (refused !== undefined || cardNumber === undefined) return refused;
    return this.count(`page-card:${cardFingerprint(this.fingerprintKey, cardNumber)}`, this.limits.perCard);
  }
}

/** The 429 page: what happened and when to come back, with Retry-After. */
export function tooManyAttempts(ctx: Koa.Context, retryAfter: number): void {
  const minutes = Math.ceil(retryAfter / 60);
  const heading = 'Too many attempts';
  setPageSecurityHeaders(ctx);
  ctx.set('Retry-After', String(retryAfter));
  ctx.status = 429;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = page(
    heading,
    messagePage(
      heading,
      `There have been too many attempts. Wait ${minutes === 1 ? 'a minute' : `${minutes} minutes`} and try again. You have not been charged.`,
    ),
  );
}
