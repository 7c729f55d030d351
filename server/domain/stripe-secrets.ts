// What a Stripe account's secrets look like, as the operator CLI (set-provider) and the API
// (PUT /api/business/acquirer) both accept them.

/** A secret or restricted key, test or live. */
export const STRIPE_SECRET_KEY = /^[rs]k_(test|live)_[A-Za-z0-9]{8,247}$/;
/** A webhook endpoint's signing secret. */
export const STRIPE_WEBHOOK_SECRET = /^whsec_[A-Za-z0-9+/=]{8,204}$/;

export type StripeMode = 'test' | 'live';

/** The mode a key (or its hint, `sk_live_…abcd`) is for; null when it names none. */
export function stripeMode(keyOrHint: string | null): StripeMode | null {
  const mode = keyOrHint ? /^[rs]k_(test|live)_/.exec(keyOrHint)?.[1] : undefined;
  return mode === 'test' || mode === 'live' ? mode : null;
}

/** Where a business's Stripe account sends its notifications (POST /stripe/webhooks/{business_id}). */
export function stripeWebhookUrl(publicUrl: string, businessId: number): string {
  return `${publicUrl}/stripe/webhooks/${businessId}`;
}
