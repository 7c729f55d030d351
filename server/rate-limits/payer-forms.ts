// Limits on the payer forms, against card testing and against anyone locking a link: anyone may post a
// pay form or an activation form, so each post is counted per client (an address, an IPv6 /64), each
// card number per attempt, and each link (or token) per decline. A link counts declines, not posts:
// posts anyone can make in any number, and a link that counted them would lock its real payers out.
// Counted in the API limiter's store (memory on SQLite, the database on PostgreSQL, Redis when
// configured), so every instance shares the counts. A card is counted under an HMAC of its number with
// a server key: the number itself is never stored or logged.
import { createHmac } from 'node:crypto';
import { clientOf, type RateLimiter } from './limiter.js';

export interface PageLimits {
  /** Length of each counting window, in seconds. */
  windowSeconds: number;
  /** Form posts per client per window: every post to a pay or activation form. */
  perAddress: number;
  /**
   * Declined attempts per payment link, open link or token per window, on our card form; on a hosted
   * acquirer's page (whose declines the acquirer counts), card-saving pages opened per token.
   */
  perLink: number;
  /** Attempts per card number per window. */
  perCard: number;
  /** New checkouts on a hosted acquirer's page per client and link per window. */
  checkoutsPerAddress: number;
  /** Checkouts on a hosted acquirer's page a link may have open at once. */
  openCheckoutsPerLink: number;
}

export const DEFAULT_PAGE_LIMITS: PageLimits = {
  windowSeconds: 600,
  perAddress: 30,
  perLink: 100,
  perCard: 10,
  checkoutsPerAddress: 3,
  openCheckoutsPerLink: 50,
};

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

  private window(limit: number) {
    return { limit, seconds: this.limits.windowSeconds };
  }

  private async count(bucket: string, limit: number): Promise<Refusal> {
    const result = await this.limiter.hit(bucket, Date.now(), this.window(limit));
    return result.allowed ? undefined : result.retryAfter;
  }

  /** Every post of a payer form, before its body is read. */
  post(address: string): Promise<Refusal> {
    return this.count(`page-ip:${clientOf(address)}`, this.limits.perAddress);
  }

  /**
   * A valid card form about to reach the acquirer: counted per card first, so a card past its own
   * limit is refused before the link is looked at; then refused while the link (or token) has had
   * its share of declines in this window. The attempt is not counted against the link: a decline is
   * (`declined`).
   */
  async cardAttempt(linkId: string, cardNumber: string): Promise<Refusal> {
    const refused = await this.count(`page-card:${cardFingerprint(this.fingerprintKey, cardNumber)}`, this.limits.perCard);
    if (refused !== undefined) return refused;
    const declines = await this.limiter.peek(`page-declines:${linkId}`, Date.now(), this.window(this.limits.perLink));
    return declines.allowed ? undefined : declines.retryAfter;
  }

  /** The acquirer declined a card on the link (or token). */
  async declined(linkId: string): Promise<void> {
    await this.limiter.hit(`page-declines:${linkId}`, Date.now(), this.window(this.limits.perLink));
  }

  /** A token's card-saving page on a hosted acquirer, about to be opened (declines there are the acquirer's). */
  cardSetup(tokenId: string): Promise<Refusal> {
    return this.count(`page-setups:${tokenId}`, this.limits.perLink);
  }

  /** A new checkout on a hosted acquirer's page, about to be opened for this client on this link. */
  checkout(linkId: string, address: string): Promise<Refusal> {
    return this.count(`page-checkouts:${linkId}:${clientOf(address)}`, this.limits.checkoutsPerAddress);
  }

  /** How many checkouts on a hosted acquirer's page a link may have open at once. */
  get openCheckoutsPerLink(): number {
    return this.limits.openCheckoutsPerLink;
  }

  /**
   * Stands for a payer's browser (its form cookie) on the payments it opens: an HMAC, so the stored
   * value cannot be played back as the cookie.
   */
  browserKey(cookie: string): string {
    return createHmac('sha256', this.fingerprintKey).update(`browser:${cookie}`).digest('base64url').slice(0, 32);
  }
}
