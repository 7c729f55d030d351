// An acquirer's notification (Stripe's webhook event) for one business: verified with that business's
// signing secret, acted on once per event id (the event's row, inserted in the transaction that acts,
// is the claim), and never trusted for the state itself: the state is read back from the acquirer
// (events can arrive late, twice or out of order) and settled as a return or the sweep would settle it.
// Anyone can post one, for any business id: whether the business has an account at the acquirer (a
// cached answer) and whether the post is signed at all are known before its body is read.
import { applyAcquirerPayout, isSettlementFeed, readAcquirerPayout } from './acquirer-payouts.js';
import { PAYMENT_PENDING } from '../../domain/statuses.js';
import { NotificationRefused, type HostedAcquirer } from '../../acquirers/acquirer.js';
import { SecretUnreadableError } from '../../secrets/seal.js';
import { findActivationAttemptBySession } from '../../store/activation-attempts.js';
import { noteAcquirerEvent, acquirerEventSeen } from '../../store/acquirer-settings.js';
import { findPaymentByProviderReference, findPaymentBySession } from '../../store/payments.js';
import { settleHostedSetup } from '../payer/activation.js';
import type { UseCaseContext } from '../platform/context.js';
import { hostedStateOf } from './hosted-checkout-state.js';
import { AcquirerUnavailable, type NotificationAccount } from '../platform/acquirer-directory.js';
import { reconcileRefunds } from './refund-reconciliation.js';
import { settleHostedPayment, type AfterCommit } from './settle-payment.js';

export type NotificationOutcome =
  | { result: 'processed' | 'duplicate' | 'ignored'; eventId: string; type: string }
  /** Not the acquirer's (bad or missing signature, a body past the limit), or the business has no such acquirer set up. */
  | { result: 'refused'; reason: string };

const UNREADY: Record<Exclude<NotificationAccount, 'ready'>, (acquirer: string) => string> = {
  no_business: () => 'no such business',
  no_account: (acquirer) => `the business has no ${acquirer} account set up`,
  no_webhook_secret: (acquirer) => `the business has no ${acquirer} webhook signing secret set (set-provider)`,
};

/** The notification's exact bytes (its signature is over them), or undefined when the body is longer than the caller reads. */
export type ReadBody = () => Promise<Buffer | undefined>;

export async function receiveAcquirerNotification(
  ctx: UseCaseContext,
  businessId: number,
  acquirerName: string,
  signature: string | undefined,
  readBody: ReadBody,
): Promise<NotificationOutcome> {
  const account = await ctx.acquirers.notificationAccount(businessId, acquirerName);
  if (account !== 'ready') return { result: 'refused', reason: UNREADY[account](acquirerName) };
  if (!signature) return { result: 'refused', reason: 'the notification is not signed' };
  const rawBody = await readBody();
  if (!rawBody) return { result: 'refused', reason: 'the notification is longer than any the acquirer sends' };
  let acquirer;
  try {
    acquirer = await ctx.acquirers.named(businessId, acquirerName);
  } catch (error) {
    if (error instanceof AcquirerUnavailable || error instanceof SecretUnreadableError) return { result: 'refused', reason: error.message };
    throw error;
  }
  if (acquirer.checkout !== 'hosted' || acquirer.name !== acquirerName)
    return { result: 'refused', reason: `this business has no ${acquirerName} account set up` };
  let notification;
  try {
    notification = acquirer.readNotification(rawBody, signature);
  } catch (error) {
    if (error instanceof NotificationRefused) return { result: 'refused', reason: error.message };
    throw error;
  }
  const { eventId, type } = notification;
  // Only spares the acquirer a look for a delivery repeated later; the claim below decides.
  if (await acquirerEventSeen(ctx.db, businessId, acquirer.name, eventId)) return { result: 'duplicate', eventId, type };

  // The acquirer is read outside any transaction; what it says is applied in the one that claims the
  // event, so of deliveries arriving together one applies it and the others, finding the claim
  // (PostgreSQL makes them wait for its commit), do nothing. A failure rolls the claim back with the
  // rest, and the acquirer's next delivery acts.
  const apply = await prepare(ctx, businessId, acquirer, notification);
  const followUps: ((ctx: UseCaseContext) => Promise<unknown>)[] = [];
  const claimed = await ctx.db.transaction(async (tx) => {
    if (!(await noteAcquirerEvent(tx, { business_id: businessId, provider: acquirer.name, event_id: eventId, type }))) return false;
    await apply?.({ ...ctx, db: tx }, (work) => followUps.push(work));
    return true;
  });
  if (!claimed) return { result: 'duplicate', eventId, type };
  // What the settlement enqueued is committed only now.
  if (apply) ctx.outbox.nudge();
  // Asked of the acquirer only once the claim has committed, never while it holds the database.
  for (const work of followUps) await work(ctx);
  return { result: apply ? 'processed' : 'ignored', eventId, type };
}

/** Settles what the acquirer said, with the context of the transaction that claims the event. */
type Apply = (claim: UseCaseContext, afterCommit: AfterCommit) => Promise<unknown>;

/** Reads what the notification is about back from the acquirer: how to settle it, or undefined when it concerns nothing of ours. */
async function prepare(
  ctx: UseCaseContext,
  businessId: number,
  acquirer: HostedAcquirer,
  notification: ReturnType<HostedAcquirer['readNotification']>,
): Promise<Apply | undefined> {
  switch (notification.about) {
    case 'payment_session': {
      const payment = await findPaymentBySession(ctx.db, acquirer.name, notification.sessionId);
      if (payment?.business_id !== businessId) return undefined;
      const state = await acquirer.paymentState(notification.sessionId);
      return (claim, afterCommit) => settleHostedPayment(claim, payment, state, afterCommit);
    }
    case 'setup_session': {
      const attempt = await findActivationAttemptBySession(ctx.db, notification.sessionId);
      if (attempt?.business_id !== businessId) return undefined;
      const state = await acquirer.setupState(notification.sessionId);
      return (claim) => settleHostedSetup(claim, attempt, state, acquirer.name);
    }
    case 'payment': {
      const payment = await findPaymentByProviderReference(ctx.db, businessId, acquirer.name, notification.paymentReference);
      if (payment?.status_id !== PAYMENT_PENDING) return undefined;
      const state = await hostedStateOf(ctx, payment);
      return state && ((claim, afterCommit) => settleHostedPayment(claim, payment, state, afterCommit));
    }
    case 'refunds': {
      const payment = await findPaymentByProviderReference(ctx.db, businessId, acquirer.name, notification.paymentReference);
      if (!payment) return undefined;
      const refunds = await acquirer.refunds(notification.paymentReference);
      return (claim) => reconcileRefunds(claim, payment, refunds);
    }
    case 'payout': {
      if (!isSettlementFeed(acquirer)) return undefined;
      const payout = await acquirer.payout(notification.payoutId);
      if (!payout) return undefined;
      const report = await readAcquirerPayout(acquirer, payout);
      return (claim) => applyAcquirerPayout(claim.db, businessId, acquirer.name, report, { periodicSync: false });
    }
    case 'nothing':
      return undefined;
  }
}
