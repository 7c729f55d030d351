// A payment's `status` in the API: one name for each pair of the seed's status code and how much of it
// is refunded. Shared by the JSON answers, their filter and the CSV export.
import type { components } from '../../generated/openapi.js';
import { PAYMENT_FAILED, PAYMENT_PAID, PAYMENT_PENDING, REFUND_FULL, REFUND_NONE, REFUND_PARTIAL } from '../domain/statuses.js';
import type { PaymentRecord } from '../usecases/merchant/payments.js';

export type PaymentStatus = components['schemas']['Payment']['status'];

/** `status` from the seed's code and how much is refunded; each name is one (status_id, refund_state) pair. */
export const PAYMENT_STATUSES: Record<PaymentStatus, { statusId: number; refundState: number }> = {
  paid: { statusId: PAYMENT_PAID, refundState: REFUND_NONE },
  partially_refunded: { statusId: PAYMENT_PAID, refundState: REFUND_PARTIAL },
  refunded: { statusId: PAYMENT_PAID, refundState: REFUND_FULL },
  pending: { statusId: PAYMENT_PENDING, refundState: REFUND_NONE },
  failed: { statusId: PAYMENT_FAILED, refundState: REFUND_NONE },
};

export function paymentStatus(record: Pick<PaymentRecord, 'status_id' | 'refund_state'>): PaymentStatus {
  const found = (Object.keys(PAYMENT_STATUSES) as PaymentStatus[]).find(
    (name) => PAYMENT_STATUSES[name].statusId === record.status_id && PAYMENT_STATUSES[name].refundState === record.refund_state,
  );
  if (!found) throw new Error(`payment status ${record.status_id}/${record.refund_state} has no name`);
  return found;
}
