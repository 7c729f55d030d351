// Which webhook events are about a payment, and what each event says in words. GET /api/events has no
// `filter[payment_id]`, so the console reads the events of the payment's days (a few pages at most)
// and keeps those that name it.
import type { components } from '@payment-collection/client';
import { addDays } from './dates.js';

export const EVENT_PAGES_READ = 3;

/** Every event type the contract declares (the events list's filter): one not worded here fails the typecheck. */
export type EventType = components['parameters']['EventTypeFilter'];

export const EVENT_WORDS: Readonly<Record<EventType, string>> = {
  'payment.created': 'Payment made',
  'payment.failed': 'Payment failed',
  'refund.succeeded': 'Refund succeeded',
  'refund.failed': 'Refund failed',
  'payment_link.expired': 'Payment link expired',
  'token.activated': 'Card saved',
  'token.card_removed': 'Saved card removed',
  'payout.created': 'Payout made',
  'payout.paid': 'Payout arrived',
  'payout.failed': 'Payout failed',
  'payout.reconciliation_failed': 'Payout does not reconcile',
  ping: 'Test event (ping)',
};

/** An event's type in words; a type this console was built without still reads ("subscription.renewed" as "Subscription renewed"). */
export function eventWords(type: string): string {
  if (Object.hasOwn(EVENT_WORDS, type)) return EVENT_WORDS[type as EventType];
  const words = type.replaceAll(/[._]/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The UTC days an event about a payment made at `createdAt` is listed under: that day, and what followed within a week (refunds). */
export function eventRangeFor(createdAt: string, today = new Date().toISOString().slice(0, 10)): string {
  const from = createdAt.slice(0, 10);
  const week = addDays(from, 7);
  return `${from},${week < today ? week : today < from ? from : today}`;
}

export function namesPayment(eventData: unknown, paymentId: string): boolean {
  if (typeof eventData !== 'object' || eventData === null) return false;
  const data = eventData as { payment_id?: unknown; data?: { payment_id?: unknown } };
  return data.payment_id === paymentId || data.data?.payment_id === paymentId;
}
