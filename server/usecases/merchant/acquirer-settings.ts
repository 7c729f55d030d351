// The business's acquirer as its members set it (GET/PUT /api/business/acquirer): the sandbox, or
// its own Stripe account, whose secrets are sealed at rest and never shown back (only a hint).
import { STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET, stripeMode, stripeWebhookUrl, type StripeMode } from '../../domain/stripe-secrets.js';
import { listAcquirers, setAcquirer, type AcquirerName } from '../../store/acquirer-settings.js';
import type { UseCaseContext } from '../platform/context.js';

export interface AcquirerView {
  acquirer: AcquirerName;
  mode: StripeMode | null;
  stripeKeyHint: string | null;
  stripeWebhookSecretSet: boolean;
  stripeWebhookUrl: string;
}

export interface AcquirerChange {
  acquirer: AcquirerName;
  stripeSecretKey?: string | undefined;
  stripeWebhookSecret?: string | undefined;
}

export type AcquirerOutcome = { outcome: 'saved'; acquirer: AcquirerView } | { outcome: 'invalid'; errors: Record<string, string[]> };

export async function getAcquirer(ctx: UseCaseContext, businessId: number): Promise<AcquirerView> {
  const summary = (await listAcquirers(ctx.db, businessId))[0]!;
  return {
    acquirer: summary.provider,
    mode: stripeMode(summary.stripe_key_hint),
    stripeKeyHint: summary.stripe_key_hint,
    stripeWebhookSecretSet: summary.stripe_webhook_secret_set,
    stripeWebhookUrl: stripeWebhookUrl(ctx.publicUrl, businessId),
  };
}

/** The shapes of the secrets given, as the CLI checks them; the messages never repeat a secret. */
export function acquirerSecretErrors(change: { stripeSecretKey?: string | undefined; stripeWebhookSecret?: string | undefined }): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  if (change.stripeSecretKey !== undefined && !STRIPE_SECRET_KEY.test(change.stripeSecretKey)) {
    errors.stripe_secret_key = ['The stripe secret key must be a Stripe secret or restricted key (sk_test_, sk_live_, rk_test_ or rk_live_).'];
  }
  if (change.stripeWebhookSecret !== undefined && !STRIPE_WEBHOOK_SECRET.test(change.stripeWebhookSecret)) {
    errors.stripe_webhook_secret = ['The stripe webhook secret must be a Stripe webhook signing secret (whsec_...).'];
  }
  return errors;
}

/**
 * Chooses the business's acquirer. Stripe needs a secret key the first time; secrets left out are
 * kept. New payments go through the new acquirer at once (the directory reads the choice on each
 * use); whether Stripe's notifications are taken is remembered up to NOTIFICATION_ACCOUNT_TTL_MS,
 * forgotten here at once in this process.
 */
export async function changeAcquirer(ctx: UseCaseContext, businessId: number, change: AcquirerChange): Promise<AcquirerOutcome> {
  const errors = acquirerSecretErrors(change);
  if (Object.keys(errors).length > 0) return { outcome: 'invalid', errors };
  const current = await getAcquirer(ctx, businessId);
  if (change.acquirer === 'stripe' && !change.stripeSecretKey && !current.stripeKeyHint) {
    return { outcome: 'invalid', errors: { stripe_secret_key: ['The stripe secret key field is required when acquirer is stripe.'] } };
  }
  const stripe = {
    ...(change.stripeSecretKey ? { secretKey: change.stripeSecretKey } : {}),
    ...(change.stripeWebhookSecret ? { webhookSecret: change.stripeWebhookSecret } : {}),
  };
  await setAcquirer(ctx.db, businessId, change.acquirer, stripe, ctx.secretsKey);
  ctx.acquirers.forget?.(businessId);
  const saved = await getAcquirer(ctx, businessId);
  // The hint only: a secret never reaches the audit log.
  ctx.audit?.note({
    old_acquirer: current.acquirer,
    acquirer: saved.acquirer,
    old_key_hint: current.stripeKeyHint,
    key_hint: saved.stripeKeyHint,
    webhook_secret_changed: change.stripeWebhookSecret !== undefined,
  });
  return { outcome: 'saved', acquirer: saved };
}
