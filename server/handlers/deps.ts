import type { Db } from '../store/db.js';

/** Tells the outbox worker that a commit just enqueued something, so it need not wait for its next poll. */
export interface OutboxSignal {
  nudge(): void;
}

/** What every handler module is built with. */
export interface HandlerDeps {
  db: Db;
  /** Base of every URL we hand out (payment_url, activation_url, paginator links), without a trailing slash. */
  publicUrl: string;
  outbox: OutboxSignal;
}
