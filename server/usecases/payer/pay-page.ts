// A link's pay page, as the payer sees it before paying: the link, how its business's payers pay,
// and why it cannot be paid now if it cannot (the claim that records a payment decides again). The
// other things a payer does on the pay pages: submitPayment (submit-payment.ts), returnFromAcquirer
// and showThankYou (acquirer-return.ts).
import { isId } from '../../domain/ids.js';
import type { LinkKind } from '../../domain/payer-urls.js';
import { OPEN_LINK_ACTIVE } from '../../domain/statuses.js';
import { findOpenPaymentLinkForPayer } from '../../store/open-payment-links.js';
import { findPaymentLinkForPayer } from '../../store/payment-links.js';
import type { UseCaseContext } from '../platform/context.js';
import { acquirerForPayer, type PayerAcquirer } from './payer-acquirer.js';
import { merchantFor, type Merchant } from '../merchant/business-profile.js';

export interface PaymentTarget {
  kind: LinkKind;
  id: string;
  businessId: number;
  currency: string;
  title: string;
  reference: string | null;
  reference_2: string | null;
}

/** A link as its pay page shows it. */
export interface PayableLink {
  target: PaymentTarget;
  description: string | null;
  redirectUrl: string | null;
  /** Cents, for a payment link. */
  fixedAmount?: number;
  /** Cents, for an open link. */
  minimumAmount?: number;
  /** The payer a payment link is addressed to. */
  payerEmail?: string;
  /** Card form here, or the acquirer's own page (Stripe Checkout). */
  acquirer: PayerAcquirer;
  /** Who asks for the money, as payers see it. */
  merchant: Merchant;
  /** The language the link's payer is expected to read, when the merchant said. */
  locale: string | null;
}

/** Why a link cannot be paid now. */
export type LinkRefusal = 'not_found' | 'withdrawn' | 'paid' | 'paused' | 'expired' | 'closed';

/** The link (when it exists at all) and, when it cannot be paid now, why. */
export type LinkLookup = { link: PayableLink; refusal: LinkRefusal | undefined } | { link: undefined; refusal: 'not_found' };

const NOT_FOUND = { link: undefined, refusal: 'not_found' } as const;
const OPEN_LINK_REFUSALS: Record<string, LinkRefusal | undefined> = { paused: 'paused', expired: 'expired', exhausted: 'closed' };

/** A pay page: the link and whether it can be paid now (the claim that records a payment decides again). */
export async function showPaymentPage(ctx: UseCaseContext, kind: LinkKind, id: string): Promise<LinkLookup> {
  if (!isId(id)) return NOT_FOUND;
  if (kind === 'payment_link') {
    const link = await findPaymentLinkForPayer(ctx.db, id);
    if (!link) return NOT_FOUND;
    return {
      link: { ...(await payable(ctx, kind, link)), fixedAmount: link.amount, payerEmail: link.email },
      refusal: link.deleted ? 'withdrawn' : link.paid ? 'paid' : link.status === 'Paused' ? 'paused' : link.status === 'Expired' ? 'expired' : undefined,
    };
  }
  const link = await findOpenPaymentLinkForPayer(ctx.db, id);
  if (!link) return NOT_FOUND;
  return {
    link: { ...(await payable(ctx, kind, link)), minimumAmount: link.minimum_amount },
    refusal: link.deleted ? 'withdrawn' : link.status_id === OPEN_LINK_ACTIVE ? undefined : (OPEN_LINK_REFUSALS[link.state] ?? 'withdrawn'),
  };
}

/** What both kinds of link show alike. */
async function payable(
  ctx: UseCaseContext,
  kind: LinkKind,
  link: Pick<PaymentTarget, 'currency' | 'title' | 'reference' | 'reference_2'> & {
    _id: string;
    business_id: number;
    description: string | null;
    redirect_url: string | null;
    locale: string | null;
  },
): Promise<PayableLink> {
  return {
    target: {
      kind,
      id: link._id,
      businessId: link.business_id,
      currency: link.currency,
      title: link.title,
      reference: link.reference,
      reference_2: link.reference_2,
    },
    description: link.description,
    redirectUrl: link.redirect_url,
    acquirer: await acquirerForPayer(ctx, link.business_id),
    merchant: await merchantFor(ctx.db, link.business_id),
    locale: link.locale,
  };
}
