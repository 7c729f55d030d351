// Delivers due outbox entries from inside the server process. Entries are claimed with a lease, so
// any number of processes can run a worker on one database; each attempt is recorded, failures are
// retried on the schedule in schedule.ts, and an entry past its last attempt is marked dead.
//
// Deliveries run in a pool of `concurrency` slots. A slot is filled as soon as it frees, from the due
// entries round-robin across businesses, with at most `perBusinessConcurrency` in flight for one
// business and channel: a business whose receiver hangs holds that many slots at most, and every
// other business's notifications keep flowing through the rest.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Executor } from '../store/executor.js';
import {
  claimEntries,
  deferEntry,
  deferQueue,
  listClaimable,
  markDelivered,
  markFailed,
  pruneSettled,
  type OutboxChannel,
  type OutboxEntry,
} from '../store/outbox.js';
import { isoMicros } from '../domain/time.js';
import { parseQueueKey, pickFairly, queueKey } from './fair-share.js';
import { nextAttemptAt, type RetryPolicy } from './schedule.js';
import { DeliveryError, PermanentDeliveryError, RejectedDeliveryError } from './webhook-client.js';
import { scrub, type Logger } from '../logger.js';

/** Delivers an entry; a webhook deliverer answers the receiver's HTTP status (a number), which the attempt keeps. */
export type Deliverer = (entry: OutboxEntry) => Promise<unknown>;

/**
 * Thrown by a deliverer that will not try now (e.g. an open circuit): the entry is due again at
 * `until`, no attempt counted; with `wholeQueue`, so is every other entry of its business's channel.
 */
export class DeferredDelivery extends Error {
  constructor(
    readonly until: Date,
    message: string,
    readonly wholeQueue = false,
  ) {
    super(message);
  }
}

export interface RetentionOptions {
  /** Delivered and dead entries older than this are deleted; 0 keeps them forever. */
  days: number;
  intervalMs: number;
  batchSize: number;
}

export const DEFAULT_RETENTION: RetentionOptions = { days: 30, intervalMs: 3_600_000, batchSize: 500 };

export interface WorkerOptions {
  pollMs: number;
  /** Longer than any delivery can take (SMTP and webhook timeouts are far shorter). */
  leaseMs: number;
  /** Deliveries in flight at once in this process. */
  concurrency: number;
  /** Deliveries in flight at once in this process for one business on one channel. */
  perBusinessConcurrency: number;
  retry: RetryPolicy;
  retention?: RetentionOptions;
  logger?: Pick<Logger, 'info' | 'warn' | 'error' | 'debug'>;
  /** Told how each delivery attempt ended (the metrics count them). */
  attempted?(channel: OutboxChannel, outcome: 'delivered' | 'failed' | 'abandoned' | 'deferred'): void;
}

export class OutboxWorker {
  readonly owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private timer: NodeJS.Timeout | undefined;
  private retentionTimer: NodeJS.Timeout | undefined;
  private filling: Promise<void> | undefined;
  private pruning: Promise<void> | undefined;
  private readonly inFlight = new Map<number, Promise<void>>();
  private readonly perQueue = new Map<string, number>();
  private stopped = true;
  private again = false;
  private readonly passWaiters: (() => void)[] = [];
  /**
   * "Nothing was due outside these full queues", as of `at`. Finding that out means scanning past
   * every due entry of the full queues, which for a business with a large backlog costs far more
   * than a delivery; so it is taken as true until something is enqueued or a poll interval passes
   * (a retry that comes due meanwhile waits at most that long, as it would between polls).
   */
  private dry: { full: Set<string>; at: number } | undefined;

  constructor(
    private readonly db: Executor,
    private readonly deliverers: Record<OutboxChannel, Deliverer>,
    private readonly options: WorkerOptions,
  ) {}

  start(): void {
    this.stopped = false;
    this.nudge();
    if (this.options.retention && this.options.retention.days > 0) this.scheduleRetention(0);
  }

  /** Asks for a look at due entries soon, e.g. right after a commit that enqueued something. */
  nudge(): void {
    this.dry = undefined;
    this.wake();
  }

  private wake(): void {
    if (this.stopped) return;
    if (this.filling) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.pass(), 0);
  }

  /** Stops claiming new entries and waits for deliveries (and a retention run) under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.retentionTimer);
    for (const resolve of this.passWaiters.splice(0)) resolve();
    await this.filling;
    await Promise.all(this.inFlight.values());
    await this.pruning;
  }

  /**
   * Resolves once this worker has nothing to do now: no entry due and claimable, no delivery in
   * flight and no look at the outbox under way. "Now" is the point: an entry whose next attempt is
   * scheduled for later (a retry's back-off, a deferral) does not hold it up, so after a failure it
   * resolves with that entry still pending. Entries leased by another worker are not waited for
   * either. For tests and tools that assert "nothing more is sent" without waiting out a guess.
   * Rejects if the worker is (or gets) stopped first.
   */
  async drained(): Promise<void> {
    for (;;) {
      if (this.stopped) throw new Error('the outbox worker is stopped');
      if (this.filling || this.inFlight.size > 0) {
        await this.filling;
        await Promise.all(this.inFlight.values());
        continue;
      }
      const due = await listClaimable(this.db, { limit: 1 });
      // A pass may have started (and claimed what was listed) while that query ran.
      if (this.filling || this.inFlight.size > 0) continue;
      if (due.length === 0) return;
      await this.nextPass();
    }
  }

  /** Resolves when the next pass over the outbox has claimed what it could (or the worker stopped). */
  private nextPass(): Promise<void> {
    return new Promise((resolve) => {
      this.passWaiters.push(resolve);
      this.nudge();
    });
  }

  /** How many deliveries are under way, in all and for one business's channel (for tests and logs). */
  inFlightCount(businessId?: number, channel?: OutboxChannel): number {
    if (businessId === undefined || channel === undefined) return this.inFlight.size;
    return this.perQueue.get(queueKey({ business_id: businessId, channel })) ?? 0;
  }

  private async pass(): Promise<void> {
    this.filling = (async () => {
      try {
        await this.fill();
      } catch (error) {
        this.options.logger?.error({ err: error }, 'outbox pass failed');
      }
    })();
    await this.filling;
    this.filling = undefined;
    for (const resolve of this.passWaiters.splice(0)) resolve();
    if (this.stopped) return;
    const delay = this.again ? 0 : this.options.pollMs;
    this.again = false;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.pass(), delay);
  }

  /** Claims due entries into the free slots and starts them; deliveries go on after it returns. */
  private async fill(): Promise<void> {
    const cap = this.options.perBusinessConcurrency;
    while (!this.stopped) {
      const free = this.options.concurrency - this.inFlight.size;
      if (free <= 0) return;
      const fullKeys = [...this.perQueue].filter(([, count]) => count >= cap).map(([key]) => key);
      const dry = this.dry;
      // With at least those queues still full, the same look would find nothing.
      if (dry && Date.now() - dry.at < this.options.pollMs && [...dry.full].every((key) => fullKeys.includes(key))) return;
      const limit = free * cap;
      const checkedAt = Date.now();
      const candidates = await listClaimable(this.db, { limit, exclude: fullKeys.map(parseQueueKey) });
      const ids = pickFairly(candidates, free, (key) => cap - (this.perQueue.get(key) ?? 0));
      const entries = await claimEntries(this.db, this.owner, ids, this.options.leaseMs);
      for (const entry of entries) this.launch(entry);
      if (this.inFlight.size >= this.options.concurrency) return;
      // Fewer than asked for, and slots to spare: that was everything due outside the queues left out,
      // and what was not taken belongs to queues that had no room left (or was taken by another worker).
      if (candidates.length < limit && ids.length < free) {
        const taken = new Set(ids);
        this.dry = { full: new Set([...fullKeys, ...candidates.filter((c) => !taken.has(c.id)).map(queueKey)]), at: checkedAt };
        return;
      }
      // None taken from a full list: another worker claimed them since; the next poll looks again.
      if (entries.length === 0) return;
    }
  }

  private launch(entry: OutboxEntry): void {
    const key = queueKey(entry);
    this.perQueue.set(key, (this.perQueue.get(key) ?? 0) + 1);
    const delivery = this.deliver(entry)
      .catch((error: unknown) => this.options.logger?.error({ err: error, outbox_id: entry.id }, 'outbox delivery could not be settled'))
      .finally(() => {
        this.inFlight.delete(entry.id);
        const left = (this.perQueue.get(key) ?? 1) - 1;
        if (left === 0) this.perQueue.delete(key);
        else this.perQueue.set(key, left);
        this.wake();
      });
    this.inFlight.set(entry.id, delivery);
  }

  private async deliver(entry: OutboxEntry): Promise<void> {
    const started_at = isoMicros(new Date());
    const attempt = { worker: this.owner, attempt: entry.attempts, started_at };
    try {
      const status = await this.deliverers[entry.channel](entry);
      await markDelivered(this.db, entry, { ...attempt, outcome: 'delivered', error: null, http_status: typeof status === 'number' ? status : null });
      this.options.attempted?.(entry.channel, 'delivered');
    } catch (error) {
      if (error instanceof DeferredDelivery) {
        this.options.logger?.debug(
          { outbox_id: entry.id, channel: entry.channel, topic: entry.topic, reason: error.message, next_attempt_at: error.until.toISOString() },
          'outbox delivery deferred',
        );
        await deferEntry(this.db, entry.id, this.owner, error.until);
        if (error.wholeQueue) await deferQueue(this.db, entry, error.until);
        this.options.attempted?.(entry.channel, 'deferred');
        return;
      }
      const message = (error as Error).message || String(error);
      const retryAt = error instanceof PermanentDeliveryError ? null : nextAttemptAt(entry.attempts, this.options.retry);
      this.options.logger?.warn(
        {
          outbox_id: entry.id,
          business_id: entry.business_id,
          channel: entry.channel,
          topic: entry.topic,
          attempt: entry.attempts,
          // What happened exactly, for the operator; the business is told the category (error.message).
          error: error instanceof DeliveryError ? error.detail : message,
          next_attempt_at: retryAt?.toISOString() ?? null,
        },
        retryAt ? 'outbox delivery failed; will retry' : 'outbox delivery failed; giving up',
      );
      const http_status = error instanceof RejectedDeliveryError ? error.status : null;
      // Scrubbed as a log line is: an SMTP server's refusal quotes the payer's address.
      await markFailed(this.db, entry, { ...attempt, outcome: 'failed', error: scrub(message), http_status }, retryAt);
      this.options.attempted?.(entry.channel, retryAt ? 'failed' : 'abandoned');
    }
  }

  private scheduleRetention(delayMs: number): void {
    this.retentionTimer = setTimeout(() => {
      this.pruning = this.prune().finally(() => {
        this.pruning = undefined;
        if (!this.stopped) this.scheduleRetention(this.options.retention!.intervalMs);
      });
    }, delayMs);
    this.retentionTimer.unref();
  }

  private async prune(): Promise<void> {
    const retention = this.options.retention!;
    try {
      const before = new Date(Date.now() - retention.days * 86_400_000);
      const { deleted } = await pruneSettled(this.db, { before, batchSize: retention.batchSize, shouldStop: () => this.stopped });
      if (deleted > 0) this.options.logger?.info({ deleted, retention_days: retention.days }, 'outbox: deleted delivered and dead entries past retention');
    } catch (error) {
      this.options.logger?.error({ err: error }, 'outbox retention failed');
    }
  }
}
