// Delivers due outbox entries from inside the server process. Entries are claimed with a lease, so
// any number of processes can run a worker on one database; each attempt is recorded, failures are
// retried on the schedule in schedule.ts, and an entry past its last attempt is marked dead.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Executor } from '../store/executor.js';
import { claimDue, markDelivered, markFailed, type OutboxChannel, type OutboxEntry } from '../store/outbox.js';
import { isoMicros } from '../domain/time.js';
import { nextAttemptAt, type RetryPolicy } from './schedule.js';
import { PermanentDeliveryError } from './webhook-client.js';
import type { Logger } from '../logger.js';

export type Deliverer = (entry: OutboxEntry) => Promise<void>;

export interface WorkerOptions {
  pollMs: number;
  /** Longer than any delivery can take (SMTP and webhook timeouts are far shorter). */
  leaseMs: number;
  batchSize: number;
  retry: RetryPolicy;
  logger?: Pick<Logger, 'warn' | 'error'>;
}

export class OutboxWorker {
  readonly owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  private again = false;

  constructor(
    private readonly db: Executor,
    private readonly deliverers: Record<OutboxChannel, Deliverer>,
    private readonly options: WorkerOptions,
  ) {}

  start(): void {
    this.stopped = false;
    this.nudge();
  }

  /** Asks for a pass soon, e.g. right after a commit that enqueued something. */
  nudge(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.pass(), 0);
  }

  /** Stops claiming new entries and waits for deliveries under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** One pass: claim due entries and deliver them. Resolves with how many were claimed. */
  async runOnce(): Promise<number> {
    const entries = await claimDue(this.db, this.owner, this.options.leaseMs, this.options.batchSize);
    await Promise.all(entries.map((entry) => this.deliver(entry)));
    return entries.length;
  }

  private async pass(): Promise<void> {
    let claimed = 0;
    this.running = (async () => {
      try {
        claimed = await this.runOnce();
      } catch (error) {
        this.options.logger?.error({ err: error }, 'outbox pass failed');
      }
    })();
    await this.running;
    this.running = undefined;
    if (this.stopped) return;
    const full = claimed === this.options.batchSize;
    const delay = full || this.again ? 0 : this.options.pollMs;
    this.again = false;
    this.timer = setTimeout(() => void this.pass(), delay);
  }

  private async deliver(entry: OutboxEntry): Promise<void> {
    const started_at = isoMicros(new Date());
    const attempt = { worker: this.owner, attempt: entry.attempts, started_at };
    try {
      await this.deliverers[entry.channel](entry);
      await markDelivered(this.db, entry.id, { ...attempt, outcome: 'delivered', error: null });
    } catch (error) {
      const message = (error as Error).message || String(error);
      const retryAt = error instanceof PermanentDeliveryError ? null : nextAttemptAt(entry.attempts, this.options.retry);
      this.options.logger?.warn(
        { outbox_id: entry.id, channel: entry.channel, topic: entry.topic, attempt: entry.attempts, error: message, next_attempt_at: retryAt?.toISOString() ?? null },
        retryAt ? 'outbox delivery failed; will retry' : 'outbox delivery failed; giving up',
      );
      await markFailed(this.db, entry.id, { ...attempt, outcome: 'failed', error: message }, retryAt);
    }
  }
}
