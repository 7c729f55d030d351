// A submitted pay form, answered once. A form submitted before (its attempt id) is answered from its
// first submit, waiting for one still in flight; a link that cannot be paid is refused; otherwise the
// payment is taken on our card form (card-form.ts), or the payer sent to the acquirer's page
// (hosted-checkout.ts). The pages keep what belongs to HTTP: reading the form's fields and wording
// their errors, the CSRF check, the signed return address and the rate limits, which `submitPayment`
// asks at the moments only it knows (a card about to reach the acquirer, a decline, a new checkout
// about to open).
import { findPaymentByAttempt, type PaymentRecord } from '../../store/payments.js';
import type { UseCaseContext } from '../platform/context.js';
import { type PayableLink, type LinkRefusal, showPaymentPage } from './pay-page.js';
import { type PaymentSubmission, type CheckoutOutcome, outcomeOf } from './link-attempts.js';
import { payByCard } from './card-form.js';
import { type HostedCheckoutStart, startHostedCheckout, resume } from './hosted-checkout.js';

/** How long a submit of an attempt still in flight waits for it to settle, and how often it looks. */
const SETTLE_WAIT_MS = 10_000;
const SETTLE_POLL_MS = 100;

export type SubmitOutcome<E> =
  | { result: 'refused'; refusal: LinkRefusal }
  /** The form was not one the page served, or was served for another link. */
  | { result: 'form_expired' }
  | { result: 'invalid'; link: PayableLink; errors: E }
  /** A limit of the edge refused the attempt, or every checkout slot of the link is held (`busy`). */
  | { result: 'limited' | 'busy'; retryAfter: number }
  | { result: 'paid'; link: PayableLink; payment: PaymentRecord }
  | { result: 'declined'; link: PayableLink }
  /** The link stopped taking payment before this payment could be recorded, nothing taken: why, read again now. */
  | { result: 'not_taken'; refusal: LinkRefusal | undefined }
  /** Still being processed after the wait. */
  | { result: 'in_progress' }
  | { result: 'to_acquirer'; link: PayableLink; url: string }
  /** An attempt on the acquirer's page that has already ended: the payer goes where its return would have. */
  | { result: 'ended'; link: PayableLink; payment: PaymentRecord }
  /** The acquirer could not open its page; the attempt is failed (nothing was taken). */
  | { result: 'acquirer_unavailable'; error: unknown };

export async function submitPayment<E>(ctx: UseCaseContext, submission: PaymentSubmission<E>): Promise<SubmitOutcome<E>> {
  const { link, refusal } = await showPaymentPage(ctx, submission.kind, submission.linkId);
  if (!link) return { result: 'refused', refusal: 'not_found' };
  const { attemptId } = submission;
  if (attemptId === undefined) return { result: 'form_expired' };

  // A repeated submit of a known attempt (double click, reload) is answered from its record.
  const earlier = await findPaymentByAttempt(ctx.db, attemptId);
  if (earlier) {
    if ((earlier.payment_link_id ?? earlier.open_payment_link_id) !== link.target.id) return { result: 'form_expired' };
    if (link.acquirer.hosted) return hostedAnswer(link, await resume(ctx, earlier));
    return answer(ctx, link, await settled(ctx, outcomeOf(earlier)));
  }
  if (refusal) return { result: 'refused', refusal };

  const read = submission.read(link);
  if ('errors' in read) return { result: 'invalid', link, errors: read.errors };
  const attempt = { target: link.target, attemptId, amount: read.entries.amount, payerName: read.entries.name, payerEmail: read.entries.email };
  if (link.acquirer.hosted) return hostedAnswer(link, await startHostedCheckout(ctx, link, attempt, submission));

  const { card } = read.entries;
  if (!card) throw new Error('a card form submitted without its card');
  const refused = await submission.limits.card(link.target.id, card);
  if (refused !== undefined) return { result: 'limited', retryAfter: refused };
  const outcome = await payByCard(ctx, { ...attempt, card });
  if (outcome.result === 'declined') await submission.limits.declined(link.target.id);
  return answer(ctx, link, await settled(ctx, outcome));
}

/** What a card payment came to, as the payer is answered. */
async function answer<E>(ctx: UseCaseContext, link: PayableLink, outcome: CheckoutOutcome): Promise<SubmitOutcome<E>> {
  switch (outcome.result) {
    case 'paid':
      return { result: 'paid', link, payment: outcome.payment };
    case 'declined':
      return { result: 'declined', link };
    case 'unavailable':
      return { result: 'not_taken', refusal: (await showPaymentPage(ctx, link.target.kind, link.target.id)).refusal };
    case 'in_progress':
      return { result: 'in_progress' };
  }
}

function hostedAnswer<E>(link: PayableLink, started: HostedCheckoutStart): SubmitOutcome<E> {
  switch (started.result) {
    case 'redirect':
      return { result: 'to_acquirer', link, url: started.url };
    case 'settled':
      return { result: 'ended', link, payment: started.payment };
    case 'acquirer_unavailable':
      return { result: 'acquirer_unavailable', error: started.error };
    default:
      return started;
  }
}

/** A submit of an attempt still in flight waits for the first to settle, then answers the same. */
async function settled(ctx: UseCaseContext, outcome: CheckoutOutcome): Promise<CheckoutOutcome> {
  let current = outcome;
  for (let waited = 0; current.result === 'in_progress' && waited < SETTLE_WAIT_MS; waited += SETTLE_POLL_MS) {
    await new Promise((resolve) => setTimeout(resolve, SETTLE_POLL_MS));
    const payment = await findPaymentByAttempt(ctx.db, current.payment.attempt_id);
    if (payment) current = outcomeOf(payment);
  }
  return current;
}
