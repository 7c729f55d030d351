// Which webhook events are about a payment. GET /api/events has no `filter[payment_id]`, so the console
// reads the events of the payment's days (a few pages at most) and keeps those that name it.
import { addDays } from './dates.js';

export const EVENT_PAGES_READ = 3;

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
