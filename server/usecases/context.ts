// What every use case works with. The executor is the request's: the database, or the transaction
// an Idempotency-Key opened around the request. Use cases open their own transactions on it, call
// the store with the executor those give them, and nudge the outbox once something they enqueued
// has committed.
import type { OutboxSignal } from '../../shared/outbox-signal.js';
import type { PaymentProvider } from '../payments/provider.js';
import type { Executor } from '../store/executor.js';

export interface UseCaseContext {
  db: Executor;
  /** Base of every URL handed out (payment_url, activation_url, paginator links), without a trailing slash. */
  publicUrl: string;
  provider: PaymentProvider;
  outbox: OutboxSignal;
}
