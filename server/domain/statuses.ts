// The status codes records carry, as the seed's fields show them.

/**
 * Open payment link `status_id`: 1 while its `state` is `active` (it takes payments), 2 when it is
 * `paused`, `expired` or `exhausted` (the state says why).
 */
export const OPEN_LINK_ACTIVE = 1;
export const OPEN_LINK_INACTIVE = 2;

/** Payment `payment_status` (and `status_id` in the store): 1 paid, 2 pending, 3 failed. */
export const PAYMENT_PAID = 1;
export const PAYMENT_PENDING = 2;
export const PAYMENT_FAILED = 3;

/** Payment `refund_state` in the store: how much of a paid payment is refunded (none, partly, fully). */
export const REFUND_NONE = 0;
export const REFUND_PARTIAL = 1;
export const REFUND_FULL = 2;

/** How a payment was made; `filter[method]` takes these. */
export const PAYMENT_METHODS = ['card', 'fpx', 'grabpay'] as const;

/** Every (status_id, refund_state) a payment can be in: refunds only ever touch paid payments. */
export const PAYMENT_STATES: readonly { statusId: number; refundState: number }[] = [
  { statusId: PAYMENT_PAID, refundState: REFUND_NONE },
  { statusId: PAYMENT_PAID, refundState: REFUND_PARTIAL },
  { statusId: PAYMENT_PAID, refundState: REFUND_FULL },
  { statusId: PAYMENT_PENDING, refundState: REFUND_NONE },
  { statusId: PAYMENT_FAILED, refundState: REFUND_NONE },
];
