// The composition root: opens the database, migrates it, and assembles the service from its rooms:
// use cases over the store, the API handlers and the payer pages over the use cases, the HTTP
// adapter over both, and the outbox worker. Used by main.ts and by the tests, which start the real
// app on 127.0.0.1:0.
import { lastVerifiedBackupAt } from './store/backup-runs.js';
import { countMismatchedPayouts } from './store/payouts.js';
import { balanceHandlers } from './handlers/balance.js';
import { bankStatementHandlers } from './handlers/bank-statements.js';
import { payoutHandlers } from './handlers/payouts.js';
import { settlementTerms, type SettlementSettings } from './usecases/settlement/terms.js';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEFAULT_OUTBOX, DEFAULT_RATE_LIMIT, type MailSettings, type OutboxConfig } from './config.js';
import { openPaymentLinkHandlers } from './handlers/open-payment-links.js';
import { paymentLinkHandlers } from './handlers/payment-links.js';
import { eventHandlers } from './handlers/events.js';
import { webhookEndpointHandlers } from './handlers/webhook-endpoints.js';
import { paymentHandlers } from './handlers/payments.js';
import { redirectSigningKeyHandlers } from './handlers/redirect-signing-keys.js';
import { authHandlers } from './handlers/auth.js';
import { teamHandlers } from './handlers/team.js';
import { businessHandlers } from './handlers/business.js';
import { tokenizationHandlers } from './handlers/tokenizations.js';
import { apiKeyHandlers } from './handlers/api-keys.js';
import { auditEventHandlers } from './handlers/audit-events.js';
import { reportHandlers } from './handlers/reports.js';
import { createHttpApp } from './http/app.js';
import { loadContract, warmUp } from './http/contract.js';
import { DEFAULT_LINGER, type LingerLimits } from './http/linger.js';
import type { Handlers } from './http/operations.js';
import type { RateLimiter } from './rate-limits/limiter.js';
import { createRateLimiter, type RateLimitConfig } from './rate-limits/backends.js';
import { DEFAULT_HTTP_TIMEOUTS, createHttpServer, type HttpTimeouts } from './http/server.js';
import { createLogger, type Logger } from './logger.js';
import { createDeliverers } from './outbox/deliverers.js';
import { createMailer, loadNodemailer, type Mailer } from './outbox/mailer.js';
import type { Resolver } from './outbox/webhook-target.js';
import { OutboxWorker } from './outbox/worker.js';
import { pageRoutes } from './pages/routes.js';
import { consoleRoutes, loadSend } from './console.js';
import { loadLibraries, type LibraryLoaders } from './library-warm-up.js';
import { loadCsvStringify } from './handlers/payments-csv.js';
import { loadQrCode } from './qr.js';
import { loadTotp } from './usecases/members/two-factor.js';
import { loadSigner, loadUndici } from './outbox/webhook-client.js';
import { CONSOLE_DIST_PATH } from './file-locations.js';
import { acquirerRoutes } from './acquirer-notifications/endpoint.js';
import type { CardFormAcquirer } from './acquirers/acquirer.js';
import { SandboxAcquirer } from './acquirers/sandbox.js';
import { stripeApiAddress } from './acquirers/stripe.js';
import { openDatabase, type Database, type DatabaseOptions } from './store/database.js';
import { loadMasterKey, type SecretsSettings } from './secrets/key-source.js';
import type { MasterKey } from './secrets/master-key.js';
import { sealLegacyWebhookSecrets } from './store/seal-legacy-secrets.js';
import { DEFAULT_PAGE_LIMITS, PageLimiter, type PageLimits } from './rate-limits/payer-forms.js';
import { DEFAULT_NOTIFICATION_LIMITS, NotificationLimiter, type NotificationLimits } from './rate-limits/acquirer-notifications.js';
import { pageKeys } from './pages/signing.js';
import { CallerCache, DEFAULT_CALLER_CACHE_MS } from './store/api-key-cache.js';
import { NO_BROADCAST, redisKeyChangeBroadcast } from './store/api-key-broadcast.js';
import { DEFAULT_SESSION_SETTINGS, sessionCaller, type SessionSettings } from './usecases/members/auth.js';
import { DEFAULT_SIGN_IN_LIMITS, SecretAttemptLimiter, type SignInLimits } from './rate-limits/secret-attempts.js';
import { DEFAULT_PASSWORD_RESETS, PasswordResetLimiter, type PasswordResetSettings } from './rate-limits/password-resets.js';
import { passwordResetHandlers } from './handlers/password-resets.js';
import { AcquirerDirectory } from './usecases/platform/acquirer-directory.js';
import { DEFAULT_PAYER_EMAILS_PER_DAY } from './store/payer-email-counts.js';
import { DEFAULT_INVITATIONS_PER_DAY } from './store/invitation-counts.js';
import { toErrorResponse } from './http/errors.js';
import type { UseCaseContext } from './usecases/platform/context.js';
import { auditedWrites } from './usecases/platform/audited-writes.js';
import { DEFAULT_PERIODIC_JOBS, startPeriodicJobs } from './jobs/periodic.js';
import { ServiceMetrics, type MetricSources } from './metrics/service-metrics.js';
import { metricsRoute, startMetricsServer } from './metrics/endpoint.js';
import { timedAcquirers } from './metrics/timed-acquirers.js';
import { countingRefusals } from './rate-limits/refusals.js';
import { RedisRateLimiter } from './rate-limits/backends.js';
import { PostgresExecutor } from './store/postgres.js';
import { outboxBacklog } from './store/outbox-backlog.js';
import type { Executor } from './store/executor.js';
import type { BackupSchedule } from './backup/recorded.js';

/** How long after listening the validators not yet used are compiled in the background (see warmUp). */
const VALIDATOR_WARM_UP_DELAY_MS = 1_000;

export interface StartOptions {
  databaseUrl: string;
  /** PostgreSQL's statement timeout and pool size. */
  database?: DatabaseOptions;
  port: number;
  host: string;
  publicUrl?: string | undefined;
  /** The card-form acquirer of businesses on the sandbox; the sandbox unless a test supplies another. */
  sandbox?: CardFormAcquirer;
  /** Where Stripe's SDK sends requests for businesses on Stripe: Stripe itself unless set (a stand-in, in tests). */
  stripeApiUrl?: string | undefined;
  mail?: Partial<MailSettings>;
  outbox?: Partial<OutboxConfig>;
  rateLimit?: Partial<RateLimitConfig>;
  /** How often links past their expires_at are marked expired and announced (60 s unless given). */
  expirySweepMs?: number;
  /**
   * How often what a stopped process left pending is settled, and how long a payment or refund must
   * have waited first (usecases/settlement/pending-sweep.ts); every minute, after 15 minutes, unless given.
   */
  pendingSweep?: { everyMs?: number; graceMs?: number };
  /** How long a key lookup is reused; 0 looks every key up on every request. */
  apiKeyCacheMs?: number;
  migrateOnStart?: boolean;
  /** Structured logs; JSON lines on stdout at `info` unless given. */
  logger?: Logger;
  /** How long clients have to send their requests. */
  http?: Partial<HttpTimeouts>;
  /** How much of a body answered unread is read before the connection closes (DEFAULT_LINGER for what is not given). */
  linger?: Partial<LingerLimits>;
  /** SECRETS_KEY, or the key file (next to the SQLite file unless named); required on PostgreSQL. */
  secrets?: SecretsSettings;
  /** Attempts on the payer forms; DEFAULT_PAGE_LIMITS for what is not given. */
  pageLimits?: Partial<PageLimits>;
  /** Posts to the acquirers' notification addresses per client address; DEFAULT_NOTIFICATION_LIMITS for what is not given. */
  notificationLimits?: Partial<NotificationLimits>;
  /** Proxies whose X-Forwarded-For entries are trusted for the client's address; 0 unless given. */
  trustProxyHops?: number;
  /** How webhook hosts are resolved; the system resolver unless a test stubs it. */
  resolve?: Resolver;
  /** The merchant console's build served at /console; console/dist unless a test gives another. */
  consoleDir?: string;
  /** Payer e-mails a business's API calls may have sent per UTC day (PAYER_EMAILS_PER_DAY); 1,000 unless given. */
  payerEmailsPerDay?: number;
  /** Invitations a business may send per UTC day (INVITATIONS_PER_DAY); 100 unless given. */
  invitationsPerDay?: number;
  /** How long after listening the validators no request has needed yet are compiled (VALIDATOR_WARM_UP_DELAY_MS unless given). */
  validatorWarmUpMs?: number;
  /** Days audit events are kept (AUDIT_RETENTION_DAYS); 400 unless given. */
  auditRetentionDays?: number;
  /** Members' sessions: idle timeout and absolute lifetime (DEFAULT_SESSION_SETTINGS for what is not given). */
  sessions?: Partial<SessionSettings>;
  /** Failed attempts at members' secrets per account from an address, per address and per account (DEFAULT_SIGN_IN_LIMITS for what is not given). */
  signInLimits?: Partial<SignInLimits>;
  /** Password resets by e-mail: limits and how long a link works (DEFAULT_PASSWORD_RESETS for what is not given). */
  passwordResets?: Partial<PasswordResetSettings>;
  /** The sandbox's fees and delay and the business calendar (the defaults of usecases/settlement/terms.ts for what is not given). */
  settlement?: Partial<SettlementSettings>;
  /** GET /metrics behind METRICS_TOKEN, on METRICS_PORT when given (port 0: any free one); off without a token. */
  metrics?: { token?: string | undefined; port?: number | undefined };
  /** When the last verified backup finished, for the metrics; read from backup_runs unless given. */
  lastVerifiedBackup?: (db: Executor) => Promise<Date | undefined>;
  /** Scheduled backups (BACKUP_DIR); none unless given. */
  backup?: BackupSchedule | undefined;
  /** How often an instance looks whether a scheduled backup is due; every minute unless given. */
  backupCheckEveryMs?: number;
}

export interface RunningService {
  /** Where the server listens, e.g. http://127.0.0.1:41234. */
  url: string;
  publicUrl: string;
  db: Database;
  server: Server;
  logger: Logger;
  mailer: Mailer;
  limiter: RateLimiter;
  /** Seals secrets at rest and derives purpose keys (server/secrets/). */
  secretsKey: MasterKey;
  /** Present when this instance delivers the outbox. */
  worker: OutboxWorker | undefined;
  /** What the use cases run with (the database, each business's acquirer, the outbox signal). */
  context: UseCaseContext;
  /** Where /metrics answers when it listens on a port of its own (METRICS_PORT). */
  metricsUrl: string | undefined;
  /**
   * Graceful stop: /ready turns 503, the server stops accepting and finishes the requests under way,
   * the worker finishes its deliveries, then the database closes.
   */
  close(): Promise<void>;
}

export async function startService(options: StartOptions): Promise<RunningService> {
  const db = openDatabase(options.databaseUrl, options.database);
  try {
    const logger = options.logger ?? createLogger();
    const secrets = loadMasterKey(options.databaseUrl, options.secrets);
    if (secrets.created)
      logger.warn(
        { file: secrets.file, key_id: secrets.key.id },
        `created the secrets key file ${secrets.file}: back it up with the database, whose webhook keys cannot be opened without it`,
      );
    if (secrets.looseMode) logger.warn({ file: secrets.file }, `the secrets key file ${secrets.file} can be read by other users: chmod 600 it`);
    if (options.migrateOnStart ?? true) await db.migrate();
    const sealed = await sealLegacyWebhookSecrets(options.databaseUrl, secrets.key);
    if (sealed > 0) logger.info({ sealed, key_id: secrets.key.id }, `sealed ${sealed} webhook key(s) stored in clear by an earlier version`);
    // What the payer pages sign, with a key of their own derived from the secrets key (shared by every instance).
    const keys = pageKeys(secrets.key.derive('page-signing'));
    const contract = await loadContract();
    const server = createHttpServer({ ...DEFAULT_HTTP_TIMEOUTS, ...options.http });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host, () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    const localHost = options.host === '0.0.0.0' || options.host === '::' ? 'localhost' : options.host;
    const url = `http://${localHost}:${port}`;
    const publicUrl = options.publicUrl ?? url;
    const metricsToken = options.metrics?.token;
    const metrics = metricsToken ? new ServiceMetrics(metricSources(db, options.lastVerifiedBackup)) : undefined;
    const metricsServer =
      metrics && metricsToken && options.metrics?.port !== undefined
        ? await startMetricsServer(metrics, metricsToken, options.metrics.port, options.host)
        : undefined;
    const outboxConfig = { ...DEFAULT_OUTBOX, ...options.outbox };
    const mail = { smtpUrl: undefined, from: 'Payment Collection Service <no-reply@localhost>', mailDir: './data/mail', ...options.mail };
    const mailer = createMailer(mail);
    const webhookPolicy = {
      allowPrivate: outboxConfig.webhookAllowPrivate,
      allowedPorts: outboxConfig.webhookAllowedPorts,
      serviceUrls: [url, publicUrl],
      resolve: options.resolve,
    };
    const deliverers = createDeliverers(db, mailer, {
      webhookTimeoutMs: outboxConfig.webhookTimeoutMs,
      webhookPolicy,
      breaker: outboxConfig.breaker,
      logger,
      secretsKey: secrets.key,
    });
    const worker = outboxConfig.worker
      ? new OutboxWorker(db, deliverers, { ...outboxConfig, logger, attempted: metrics && ((channel, outcome) => metrics.delivery(channel, outcome)) })
      : undefined;
    const rateLimit = { ...DEFAULT_RATE_LIMIT, ...options.rateLimit };
    const counting = createRateLimiter(db, rateLimit);
    const limiter = metrics ? countingRefusals(counting, (limit) => metrics.rateLimitRefusal(limit)) : counting;
    const passwordResets = { ...DEFAULT_PASSWORD_RESETS, ...options.passwordResets };
    const callers = new CallerCache(db, options.apiKeyCacheMs ?? DEFAULT_CALLER_CACHE_MS, (error) =>
      logger.warn({ err: error }, 'noting the last use of an API key failed'),
    );
    const keyChanges = rateLimit.redisUrl
      ? redisKeyChangeBroadcast(
          rateLimit.redisUrl,
          () => callers.forget(),
          (error) => logger.warn({ err: error }, 'telling other instances of a change to API keys failed'),
        )
      : NO_BROADCAST;
    const acquirerDirectory = new AcquirerDirectory(db, secrets.key, {
      sandbox: options.sandbox ?? new SandboxAcquirer(),
      stripeApi: options.stripeApiUrl ? stripeApiAddress(options.stripeApiUrl) : undefined,
      publicUrl,
    });
    const ctx: UseCaseContext = {
      db,
      publicUrl,
      acquirers: metrics ? timedAcquirers(acquirerDirectory, metrics) : acquirerDirectory,
      settlement: settlementTerms(options.settlement),
      outbox: { nudge: () => worker?.nudge() },
      webhooks: { policy: webhookPolicy, log: logger },
      secretsKey: secrets.key,
      payerEmailsPerDay: options.payerEmailsPerDay ?? DEFAULT_PAYER_EMAILS_PER_DAY,
      invitationsPerDay: options.invitationsPerDay ?? DEFAULT_INVITATIONS_PER_DAY,
      ...(!mail.smtpUrl && { mailFolder: mail.mailDir }),
      auth: {
        sessions: { ...DEFAULT_SESSION_SETTINGS, ...options.sessions },
        throttle: new SecretAttemptLimiter(limiter, db, { ...DEFAULT_SIGN_IN_LIMITS, ...options.signInLimits }, metrics && (() => metrics.signInFailure())),
        resets: new PasswordResetLimiter(limiter, passwordResets),
        resetLinkMs: passwordResets.linkMinutes * 60_000,
      },
      apiKeys: {
        changed() {
          callers.forget();
          keyChanges.announce();
        },
      },
      ...(metrics && { outcomes: metrics }),
    };
    const handlers = {
      ...tokenizationHandlers,
      ...openPaymentLinkHandlers,
      ...paymentLinkHandlers,
      ...paymentHandlers,
      ...reportHandlers,
      ...eventHandlers,
      ...webhookEndpointHandlers,
      ...redirectSigningKeyHandlers,
      ...apiKeyHandlers,
      ...auditEventHandlers,
      ...authHandlers,
      ...passwordResetHandlers,
      ...teamHandlers,
      ...businessHandlers,
      ...balanceHandlers,
      ...payoutHandlers,
      ...bankStatementHandlers,
    } satisfies Handlers<UseCaseContext>;
    let draining = false;
    const pageDeps = {
      ...ctx,
      pageKeys: keys,
      pageLimiter: new PageLimiter(limiter, { ...DEFAULT_PAGE_LIMITS, ...options.pageLimits }, keys.cardFingerprint),
    };
    const payerPages = pageRoutes(pageDeps);
    const merchantConsole = consoleRoutes({ root: options.consoleDir ?? CONSOLE_DIST_PATH });
    const scrapes = metrics && metricsToken && !metricsServer ? metricsRoute(metrics, metricsToken) : undefined;
    const acquirers = acquirerRoutes({
      ...ctx,
      notificationLimiter: new NotificationLimiter(limiter, { ...DEFAULT_NOTIFICATION_LIMITS, ...options.notificationLimits }),
    });
    const app = createHttpApp({
      contract,
      handlers,
      scopes: auditedWrites(ctx, toErrorResponse),
      pages: (koa, next) => {
        const rest = () => merchantConsole(koa, () => payerPages(koa, () => acquirers(koa, next)));
        return scrapes ? scrapes(koa, rest) : rest();
      },
      trustProxyHops: options.trustProxyHops ?? 0,
      linger: { ...DEFAULT_LINGER, ...options.linger },
      findCaller: (key) => callers.find(key),
      findSession: (token) => sessionCaller(ctx, token),
      publicUrl,
      limiter,
      logger,
      dependencies: {
        database: () => db.ping(2_000),
        ...(counting instanceof RedisRateLimiter && { redis: () => counting.ping() }),
      },
      observeRequest: metrics && ((route, method, status, seconds) => metrics.request(route, method, status, seconds)),
      draining: () => draining,
    });
    server.on('request', app.callback());
    const warming = new AbortController();
    const warmingFrom = performance.now();
    const libraries: LibraryLoaders = {
      'csv-stringify': loadCsvStringify,
      qrcode: loadQrCode,
      otpauth: loadTotp,
      '@koa/send': loadSend,
      ...(worker && { undici: loadUndici, standardwebhooks: loadSigner }),
      ...(options.mail?.smtpUrl && { nodemailer: loadNodemailer }),
    };
    void warmUp(contract, { afterMs: options.validatorWarmUpMs ?? VALIDATOR_WARM_UP_DELAY_MS, signal: warming.signal })
      .then(() =>
        loadLibraries(libraries, {
          signal: warming.signal,
          failed: (name, error) => logger.warn({ err: error, library: name }, 'a library could not be loaded ahead of its first use'),
        }),
      )
      .then((loaded) => {
        // Said so an operator (and the bench, which measures a warm service as it measures warm peers) knows when requests stop sharing the loop with it.
        if (!warming.signal.aborted)
          logger.info({ duration_ms: Math.round(performance.now() - warmingFrom), libraries_loaded: loaded }, 'request validators compiled');
      })
      .catch((error: unknown) => logger.error({ err: error }, 'compiling the request validators failed'));
    const jobs = startPeriodicJobs(
      ctx,
      {
        expirySweepMs: options.expirySweepMs ?? DEFAULT_PERIODIC_JOBS.expirySweepMs,
        pendingSweep: { ...DEFAULT_PERIODIC_JOBS.pendingSweep, ...options.pendingSweep },
        housekeepingMs: DEFAULT_PERIODIC_JOBS.housekeepingMs,
        auditRetentionDays: options.auditRetentionDays ?? DEFAULT_PERIODIC_JOBS.auditRetentionDays,
        settlementSweepMs: DEFAULT_PERIODIC_JOBS.settlementSweepMs,
        backup: options.backup && { schedule: options.backup, databaseUrl: options.databaseUrl, checkEveryMs: options.backupCheckEveryMs },
      },
      logger,
    );
    worker?.start();
    return {
      url,
      publicUrl,
      db,
      server,
      logger,
      mailer,
      limiter,
      secretsKey: secrets.key,
      worker,
      context: ctx,
      metricsUrl: metricsServer && `http://${localHost}:${metricsServer.port}/metrics`,
      async close() {
        draining = true;
        warming.abort();
        jobs.stop();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        await closed;
        await new Promise<void>((resolve) => (metricsServer ? metricsServer.server.close(() => resolve()) : resolve()));
        await worker?.stop();
        await limiter.close();
        await keyChanges.close();
        mailer.close();
        await db.close();
      },
    };
  } catch (error) {
    await db.close();
    throw error;
  }
}

/** What the metrics read when scraped: the outbox's backlog, payouts not reconciled, PostgreSQL's pool, the last verified backup. */
function metricSources(db: Executor, lastVerifiedBackup: StartOptions['lastVerifiedBackup']): MetricSources {
  const pool = db instanceof PostgresExecutor ? db.pool : undefined;
  return {
    outboxBacklog: () => outboxBacklog(db),
    payoutsUnreconciled: () => countMismatchedPayouts(db),
    ...(pool && {
      databasePool: () => ({ max: pool.options.max ?? 0, open: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    }),
    lastVerifiedBackup: () => (lastVerifiedBackup ?? lastVerifiedBackupAt)(db),
  };
}
