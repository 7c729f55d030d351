// What every use case works with. The executor is the request's: the database, or the transaction
// an Idempotency-Key opened around the request (except for operations that ask an acquirer, which
// keep the key's answer in their own transactions through `keep`). Use cases open their own
// transactions on it, call the store with the executor those give them, and nudge the outbox once
// something they enqueued has committed.
import type { OutboxSignal } from '../../outbox/signal.js';
import type { WebhookPolicy } from '../../outbox/webhook-target.js';
import type { MasterKey } from '../../secrets/master-key.js';
import type { AuditDetails } from '../../store/audit-events.js';
import type { Executor } from '../../store/executor.js';
import type { Acquirers } from './acquirer-directory.js';
import type { AuthContext } from '../members/auth-context.js';
import type { SettlementTerms } from '../settlement/ledger.js';

export interface UseCaseContext {
  db: Executor;
  /** Base of every URL handed out (payment_url, activation_url, paginator links), without a trailing slash. */
  publicUrl: string;
  /** The acquirer of each business (the sandbox, or Stripe once the business is switched to it). */
  acquirers: Acquirers;
  /** How the sandbox charges fees and makes funds available, and the business days payouts keep. */
  settlement: SettlementTerms;
  outbox: OutboxSignal;
  /**
   * Where webhook endpoints may point, and where the reason a URL was refused is written (the server
   * log: the business is told only that the address is not allowed).
   */
  webhooks: { policy: WebhookPolicy; log?: { warn(fields: Record<string, unknown>, message: string): void } };
  /** Seals what is kept secret at rest: webhook endpoints' signing keys, the responses kept under an Idempotency-Key. */
  secretsKey: MasterKey;
  /** Payer e-mails a business's API calls may have sent per UTC day (PAYER_EMAILS_PER_DAY); 1,000 unless given. */
  payerEmailsPerDay?: number;
  /** Invitations a business may send per UTC day (INVITATIONS_PER_DAY); 100 unless given. */
  invitationsPerDay?: number;
  /**
   * The folder e-mails are written to when no SMTP server is configured (MAIL_DIR); absent when they go
   * out by SMTP. While it is set no e-mail reaches an inbox, so an invitation's link is handed to the inviter too.
   */
  mailFolder?: string;
  /**
   * Under an Idempotency-Key, for an operation run in atomic phases: keeps a reply for the key in a
   * transaction of the use case, so that it commits with what makes it true. Absent otherwise.
   */
  keep?: KeepReply;
  /** Members' sessions and the sign-in throttle (usecases/members/auth.ts). */
  auth?: AuthContext;
  /**
   * Inside a write the router audits: notes what the change changed (old and new values), recorded
   * with the write's audit entry. Absent where the use case records its own events.
   */
  audit?: { note(details: AuditDetails): void };
  /**
   * Says that what some API keys may do changed (a key revoked, its maker's role changed or removed):
   * every instance forgets the keys it looked up, at once here and through Redis where it is
   * configured, else within API_KEY_CACHE_MS. Call it once the change has committed.
   */
  apiKeys?: { changed(): void };
  /** Told of each payment and refund settled, once its transaction returned (the metrics count them); absent when metrics are off. */
  outcomes?: OutcomeMeter;
}

/** What settled: a payment by its acquirer (`provider`) and method, a refund by its acquirer. */
export interface OutcomeMeter {
  payment(payment: { provider: string; method: string }, outcome: 'succeeded' | 'failed'): void;
  refund(acquirer: string, outcome: 'succeeded' | 'failed'): void;
}

/** The answer kept for an Idempotency-Key and replayed to a retry with the same key. */
export interface KeptReply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** Keeps `reply` as the answer to the request's key, in the transaction `tx` (it commits with it). */
export type KeepReply = (tx: Executor, reply: KeptReply) => Promise<void>;
