// The service's metrics in Prometheus's text format, through prom-client, in a registry of the
// instance's own (two services in one process, as in the tests, never share a count). Every name
// carries one prefix and a base unit; no label takes a business, key, member or payment id, so the
// number of series depends on the routes, acquirers and outcomes seen, never on the number of tenants.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

export const METRICS_PREFIX = 'payment_collection_';

/** What the metrics read when scraped; the composition root hands them in, so this room imports nothing of ours. */
export interface MetricSources {
  /** Outbox entries not yet delivered (a count that may stop at a cap), and how long the oldest has waited. */
  outboxBacklog(): Promise<{ pending: number; oldestAgeSeconds: number }>;
  /** PostgreSQL's connection pool; absent on SQLite, which has no pool. */
  databasePool?(): { max: number; open: number; idle: number; waiting: number };
  /** When the last backup that was verified finished (the backup_runs table); absent until backups are recorded. */
  lastVerifiedBackup?(): Promise<Date | undefined>;
  /** Payouts whose reconciliation is `mismatched`: their entries do not add up, or no statement showed their deposit in time. */
  payoutsUnreconciled(): Promise<number>;
}

export type DeliveryOutcome = 'delivered' | 'failed' | 'abandoned' | 'deferred';

/** Label values that come from data (a payment's method, an acquirer's name) pass only when short and plain: anything else counts as `other`. */
const PLAIN_LABEL = /^[a-z0-9_.-]{1,40}$/i;
function plain(value: string | null | undefined): string {
  return value && PLAIN_LABEL.test(value) ? value : 'other';
}

const HTTP_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'route' | 'method' | 'status_class'>;
  private readonly requestSeconds: Histogram<'route' | 'method'>;
  private readonly payments: Counter<'acquirer' | 'method' | 'outcome'>;
  private readonly refunds: Counter<'acquirer' | 'outcome'>;
  private readonly acquirerSeconds: Histogram<'acquirer' | 'operation'>;
  private readonly acquirerErrors: Counter<'acquirer' | 'operation'>;
  private readonly deliveries: Counter<'channel' | 'outcome'>;
  private readonly refusals: Counter<'limit'>;
  private readonly signInFailures: Counter;
  /** Each (route, method, status class)'s series, looked up once: prom-client hashes a label set on every call otherwise. */
  private readonly requestSeries = new Map<string, { count: { inc(): void }; duration: { observe(seconds: number): void } }>();

  constructor(sources: MetricSources) {
    const registers = [this.registry];
    const name = (rest: string) => `${METRICS_PREFIX}${rest}`;
    this.requests = new Counter({
      name: name('http_requests_total'),
      help: 'HTTP requests answered, by route template, method and status class.',
      labelNames: ['route', 'method', 'status_class'],
      registers,
    });
    this.requestSeconds = new Histogram({
      name: name('http_request_duration_seconds'),
      help: 'Time from a request arriving to its answer, by route template and method.',
      labelNames: ['route', 'method'],
      buckets: SECONDS_BUCKETS,
      registers,
    });
    this.payments = new Counter({
      name: name('payments_total'),
      help: 'Payments settled, by acquirer, payment method and outcome (succeeded or failed).',
      labelNames: ['acquirer', 'method', 'outcome'],
      registers,
    });
    this.refunds = new Counter({
      name: name('refunds_total'),
      help: 'Refunds the service asked for that reached a final state, by acquirer and outcome.',
      labelNames: ['acquirer', 'outcome'],
      registers,
    });
    this.acquirerSeconds = new Histogram({
      name: name('acquirer_request_duration_seconds'),
      help: 'Calls to an acquirer, by acquirer and operation.',
      labelNames: ['acquirer', 'operation'],
      buckets: SECONDS_BUCKETS,
      registers,
    });
    this.acquirerErrors = new Counter({
      name: name('acquirer_errors_total'),
      help: 'Calls to an acquirer that threw (no answer, or an error answer), by acquirer and operation.',
      labelNames: ['acquirer', 'operation'],
      registers,
    });
    this.deliveries = new Counter({
      name: name('outbox_deliveries_total'),
      help: 'Outbox delivery attempts, by channel (webhook, email) and outcome (delivered, failed and retried, abandoned, deferred).',
      labelNames: ['channel', 'outcome'],
      registers,
    });
    this.refusals = new Counter({
      name: name('rate_limit_refusals_total'),
      help: 'Requests refused by a rate limit, by limit.',
      labelNames: ['limit'],
      registers,
    });
    this.signInFailures = new Counter({
      name: name('sign_in_failures_total'),
      help: "Wrong members' secrets: passwords and two-factor codes at sign-in and where a secret is asked again.",
      registers,
    });
    new Gauge({
      name: name('outbox_pending_entries'),
      help: 'Outbox entries not yet delivered (counted up to a cap).',
      registers,
      async collect() {
        const backlog = await sources.outboxBacklog();
        this.set(backlog.pending);
        oldest.set(backlog.oldestAgeSeconds);
      },
    });
    const oldest = new Gauge({
      name: name('outbox_oldest_pending_age_seconds'),
      help: 'How long the oldest outbox entry not yet delivered has waited; 0 when none waits.',
      registers,
    });
    const pool = sources.databasePool;
    if (pool) {
      new Gauge({
        name: name('database_pool_connections'),
        help: "PostgreSQL pool connections of this instance by state: max (the pool's size), open, idle.",
        labelNames: ['state'],
        registers,
        collect() {
          const use = pool();
          this.set({ state: 'max' }, use.max);
          this.set({ state: 'open' }, use.open);
          this.set({ state: 'idle' }, use.idle);
        },
      });
      new Gauge({
        name: name('database_pool_waiting_requests'),
        help: 'Queries of this instance waiting for a PostgreSQL pool connection.',
        registers,
        collect() {
          this.set(pool().waiting);
        },
      });
    }
    new Gauge({
      name: name('payouts_unreconciled'),
      help: 'Payouts whose reconciliation is mismatched: entries that do not add up, or a deposit no bank statement showed in time.',
      registers,
      async collect() {
        this.set(await sources.payoutsUnreconciled());
      },
    });
    const backup = sources.lastVerifiedBackup;
    if (backup) {
      new Gauge({
        name: name('backup_last_verified_timestamp_seconds'),
        help: 'When the last verified backup finished, in Unix seconds; 0 when none is recorded.',
        registers,
        async collect() {
          const at = await backup();
          this.set(at ? at.getTime() / 1000 : 0);
        },
      });
    }
  }

  /** One answered request; `route` is its template (null for a path no route matched). */
  request(route: string | null, method: string, status: number, seconds: number): void {
    const statusClass = `${Math.floor(status / 100)}xx`;
    const key = `${route} ${method} ${statusClass}`;
    let series = this.requestSeries.get(key);
    if (!series) {
      const labels = { route: route ?? 'unmatched', method: HTTP_METHODS.has(method) ? method : 'other' };
      series = { count: this.requests.labels({ ...labels, status_class: statusClass }), duration: this.requestSeconds.labels(labels) };
      // Routes are the contract's and the pages' (a few hundred); a method a client made up is `other`, so the map stays that small.
      if (HTTP_METHODS.has(method)) this.requestSeries.set(key, series);
    }
    series.count.inc();
    series.duration.observe(seconds);
  }

  payment(payment: { provider: string; method: string }, outcome: 'succeeded' | 'failed'): void {
    this.payments.inc({ acquirer: plain(payment.provider), method: plain(payment.method), outcome });
  }

  refund(acquirer: string, outcome: 'succeeded' | 'failed'): void {
    this.refunds.inc({ acquirer: plain(acquirer), outcome });
  }

  acquirerCall(acquirer: string, operation: string, seconds: number, failed: boolean): void {
    const labels = { acquirer: plain(acquirer), operation: plain(operation) };
    this.acquirerSeconds.observe(labels, seconds);
    if (failed) this.acquirerErrors.inc(labels);
  }

  delivery(channel: string, outcome: DeliveryOutcome): void {
    this.deliveries.inc({ channel: plain(channel), outcome });
  }

  rateLimitRefusal(limit: string): void {
    this.refusals.inc({ limit });
  }

  signInFailure(): void {
    this.signInFailures.inc();
  }

  /** The text a scrape answers with. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
