// Why a payment or a refund failed, as the service records it when the acquirer did not say: the
// `failure_code` and `failure_message` integrators read on a payment or refund, and the reason of
// the refund the service makes itself. A decline's code and message are the acquirer's own.

export interface Failure {
  code: string;
  message: string;
}

/** The link could no longer be paid (paid, paused, expired or closed) by the time this payment could be recorded. */
export const LINK_UNAVAILABLE: Failure = { code: 'link_unavailable', message: 'This payment link is no longer available.' };

/** The payer left the acquirer's page without paying, and the page closed. */
export const CHECKOUT_EXPIRED: Failure = { code: 'expired', message: 'The payer left the payment page without paying; no money was taken.' };

/** A payment a stopped process left pending, settled by the pending sweep. */
export const ABANDONED: Failure = { code: 'abandoned', message: 'The payment was not completed; no money was taken.' };

/** The acquirer could not be asked to authorize the card. */
export const CARD_NOT_PROCESSED: Failure = { code: 'processing_error', message: 'The payment could not be processed.' };

/** The acquirer could not open its payment page. */
export const PAGE_NOT_OPENED: Failure = { code: 'processing_error', message: 'The payment page could not be opened; nothing was taken.' };

/** A refund the acquirer failed without saying why. */
export const REFUND_FAILED: Failure = { code: 'refund_failed', message: 'The refund failed.' };

/** The reason on the refund of a payment taken after its link could no longer be paid. */
export const LINK_UNAVAILABLE_REFUND_REASON = 'The payment link could no longer take this payment (already paid, paused, expired or closed): refunded in full.';
