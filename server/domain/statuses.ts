// The status codes records carry, as the seed's fields show them.

/** Open payment link `status_id`: 1 active, 2 inactive (reserved for a deactivated link). */
export const OPEN_LINK_ACTIVE = 1;
export const OPEN_LINK_INACTIVE = 2;

/** Payment `payment_status` (and `status_id` in the store): 1 paid, 2 pending, 3 failed. */
export const PAYMENT_PAID = 1;
export const PAYMENT_PENDING = 2;
export const PAYMENT_FAILED = 3;
